// The page's entry: builds the shell, reads the UI configuration (defaults when the binary has no
// /api/history/v1/ui yet), and starts the router over the routes of ui-contract §2.
import { Api, ApiError } from './core/api';
import type { Page } from './core/page';
import { Router } from './core/router';
import { buildShell } from './core/shell';
import { DEFAULT_UI_CONFIG, type UiConfig } from './core/types';
import { actorPage } from './pages/actor';
import { actorsPage } from './pages/actors';
import { jobPage } from './pages/job';
import { jobsPage } from './pages/jobs';
import { sessionPage } from './pages/session';
import { sessionsPage } from './pages/sessions';
import { taskPage } from './pages/task';

const routes: Record<string, Page> = {
  '/': sessionsPage,
  '/session': sessionPage,
  '/task': taskPage,
  '/actors': actorsPage,
  '/actor': actorPage,
  '/jobs': jobsPage,
  '/job': jobPage,
};

async function loadConfig(api: Api): Promise<UiConfig> {
  try {
    const c = await api.get<Partial<UiConfig>>('ui', undefined, { timeoutMs: 5000 });
    return { ...DEFAULT_UI_CONFIG, ...c };
  } catch (e) {
    // A binary without the route (404), or one that cannot answer: the pages report their own errors.
    if (!(e instanceof ApiError)) throw e;
    return DEFAULT_UI_CONFIG;
  }
}

const shell = buildShell(document.body);
const api = new Api();
// The sessions and the dashboard do not read the configuration: they start their own requests at
// once instead of waiting for it (a round trip less before the first paint).
new Router(routes, shell, api, loadConfig(api), new Set(['/', '/session'])).start();
