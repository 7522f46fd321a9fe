import { Router, type RequestHandler } from "express";
import { adminAlertRules, adminAlerts, adminAlertTest, type AdminAlerts, type AlertRuleSettings } from "../../../../src-shared/api/alerts";
import { ErrorName } from "../../../../src-shared/errors";
import type { Infer } from "../../../../src-shared/api/decode";
import type { Result } from "../../../../src-shared/result";
import { sendAnswer, sendError } from "../../respond";

/** The alerts as the console sees and changes them (composition/ops.ts keeps the alert service and the webhook). */
export interface AlertsConsole {
  view(): Promise<AdminAlerts>;
  /**
   * The console's thresholds, checked as the config file's are (the error names the bad key),
   * then saved and evaluated at once; null while alerts are off.
   */
  setRules(body: unknown): Promise<Result<AlertRuleSettings, string>> | null;
  /** One test notification and the webhook's first answer; null while alerts are off. */
  sendTest(): Promise<Infer<typeof adminAlertTest>> | null;
}

const ALERTS_OFF = "alerts are off (alerts.enabled in the config)";

/** GET /admin/alerts; PUT or POST /admin/alerts/rules (the console's Settings); POST /admin/alerts/test (the test button). */
export function adminAlertRoutes(alerts: AlertsConsole): Router {
  const r = Router();
  r.get("/", (_req, res, next) => {
    alerts
      .view()
      .then((view) => sendAnswer(res, adminAlerts, view))
      .catch(next);
  });
  const setRules: RequestHandler = (req, res, next) => {
    const changing = alerts.setRules(req.body);
    if (!changing) return sendError(res, 409, ErrorName.InvalidRequest, ALERTS_OFF);
    changing
      .then((changed) => {
        if (!changed.ok) return sendError(res, 400, ErrorName.InvalidRequest, changed.error);
        sendAnswer(res, adminAlertRules, { rules: changed.value });
      })
      .catch(next);
  };
  r.put("/rules", setRules);
  r.post("/rules", setRules);
  r.post("/test", (_req, res, next) => {
    const testing = alerts.sendTest();
    if (!testing) return sendError(res, 409, ErrorName.InvalidRequest, ALERTS_OFF);
    testing.then((answer) => sendAnswer(res, adminAlertTest, answer)).catch(next);
  });
  return r;
}
