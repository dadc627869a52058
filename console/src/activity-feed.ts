/**
 * The console's one Activity list, fed from the app's single feed subscription whichever view
 * is shown, so that leaving the Activity page and coming back loses nothing; kept in
 * sessionStorage so that a reload of the tab keeps the last hour too.
 */

import { ActivityLog } from './activity-log';
import { Watched } from './api';
import { onFeedEvent } from './sse';

const STORAGE_KEY = 'console-activity';
/** Views redraw the list at most this often, however fast events come. */
const REDRAW_MS = 250;
/** sessionStorage is written at most this often: serialising is not free in a storm. */
const SAVE_MS = 1000;

function restored(): ActivityLog {
  try {
    return ActivityLog.from(JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null'), Date.now());
  } catch {
    return new ActivityLog();
  }
}

export const activityLog = restored();
/** Bumped (at most every REDRAW_MS) when the list changed: views watch it. */
export const activityVersion = new Watched(0);

let redraw: ReturnType<typeof setTimeout> | undefined;
let save: ReturnType<typeof setTimeout> | undefined;

/** Tells the views, and later the tab's storage, that the list or its names changed. */
export function activityChanged() {
  if (redraw === undefined) {
    redraw = setTimeout(() => {
      redraw = undefined;
      activityVersion.set(activityVersion.value + 1);
    }, REDRAW_MS);
  }
  if (save === undefined) save = setTimeout(saveNow, SAVE_MS);
}

function saveNow() {
  clearTimeout(save);
  save = undefined;
  try {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(activityLog));
  } catch {
    // Storage full or refused: the list still lives for this page.
  }
}

// A reload within SAVE_MS of the last event would lose it: the page saves as it goes away.
addEventListener('pagehide', saveNow);

onFeedEvent((event) => {
  activityLog.add(event, Date.now());
  activityChanged();
});
