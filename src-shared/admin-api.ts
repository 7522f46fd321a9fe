/** Moved to src-shared/api/admin.ts (the admin API's wire contracts); kept while console pages still import this path. */
export * from "./api/admin";
