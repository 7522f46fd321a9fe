import { useEffect, useState } from "react";
import { copyText } from "../lib/clipboard";
import { shortenMiddle } from "../lib/format";

/**
 * A long value (hash, address) shown shortened, with the full value on hover and a
 * button that copies the full value.
 */
export function CopyValue({ value, label, display }: { value: string; label: string; display?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const t = setTimeout(() => setState("idle"), 1_500);
    return () => clearTimeout(t);
  }, [state]);

  return (
    <span className="copy-value">
      <code title={value}>{display ?? shortenMiddle(value)}</code>
      <button
        type="button"
        className="button button-small"
        aria-label={`Copy ${label}`}
        onClick={() =>
          copyText(value).then(
            () => setState("copied"),
            () => setState("failed"),
          )
        }
      >
        {state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : "Copy"}
      </button>
    </span>
  );
}
