// Links into Grafana, only when ui.grafana_url is an http(s) URL (grafanaBase checks it again).
//
// The template (Ray's default dashboard, uid `rayDefaultDashboard`, as Ray provisions it for
// `ray metrics launch-prometheus` / the KubeRay Grafana setup):
//
//   ${grafana_url}/d/rayDefaultDashboard/?var-SessionName=<session name>&var-NodeId=<node id>
//                                         &from=<window start − 5 min, ms>&to=<window end + 5 min, ms>
//
// The session name is Ray's own (`session_2026-…`, the last part of the history's session), the
// node id hex as the API gives it. Every value is percent-encoded with encodeURIComponent; the
// window is the attempt's first to last transition, widened so the minutes around it show too.
import { grafanaBase } from './common';

const MARGIN_MS = 5 * 60_000;

export interface GrafanaWindow { fromMs: number | null; toMs: number | null }

export function grafanaNodeUrl(grafanaUrl: string | null | undefined, sessionName: string, nodeId: string, win: GrafanaWindow): string | null {
  const base = grafanaBase(grafanaUrl);
  if (!base || !nodeId) return null;
  const parts = [
    `var-SessionName=${encodeURIComponent(sessionName)}`,
    `var-NodeId=${encodeURIComponent(nodeId)}`,
  ];
  if (win.fromMs !== null && win.fromMs > 0) parts.push(`from=${encodeURIComponent(String(Math.floor(win.fromMs - MARGIN_MS)))}`);
  if (win.toMs !== null && win.toMs > 0) parts.push(`to=${encodeURIComponent(String(Math.ceil(win.toMs + MARGIN_MS)))}`);
  return `${base}/d/rayDefaultDashboard/?${parts.join('&')}`;
}
