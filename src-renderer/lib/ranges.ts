import type { AdminRange } from "../../src-shared/api/admin";

/** The chart ranges the Pools and Money pages offer, as segmented-control options. */
export const RANGES: readonly { value: AdminRange; label: string }[] = [
  { value: "24h", label: "24 h" },
  { value: "7d", label: "7 days" },
  { value: "30d", label: "30 days" },
];
