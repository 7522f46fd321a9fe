/** Moved to src-shared/api/alerts.ts (the alerts' wire contracts); kept while console pages still import this path. */
export * from "./api/alerts";
