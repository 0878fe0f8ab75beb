// Unit tests of the page's pure parts (no DOM): formats, the manifests' verdict, the URL state
// and its chips. Bundled by scripts/unit-test.mjs and run by node's test runner (`npm test`).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { count, duration, durationUs, isoUtc } from '../src/core/format';
import { orderedStates, stateInfo } from '../src/core/states';
import { chips, countParams, exportParams, listParams, readState } from '../src/pages/dashboard/params';
import { bucketName } from '../src/pages/dashboard/groups';
import { defaultOrder, shownColumns, DEFAULT_COLUMNS } from '../src/pages/dashboard/table';
import { verdict } from '../src/pages/sessions';
import type { SessionRow } from '../src/core/types';

describe('format', () => {
  it('writes durations in the unit a person reads', () => {
    assert.equal(duration(-1), '—');
    assert.equal(duration(null), '—');
    assert.equal(duration(0), '0 s');
    assert.equal(duration(0.42), '420 µs');
    assert.equal(duration(5), '5.00 ms');
    assert.equal(duration(123.4), '123 ms');
    assert.equal(duration(38_200), '38.2 s');
    assert.equal(duration(252_000), '4 min 12 s');
    assert.equal(duration(3_720_000), '1 h 2 min');
    assert.equal(duration(3 * 86_400_000 + 4 * 3_600_000), '3 d 4 h');
    assert.equal(durationUs(1023), '1.02 ms');
  });
  it('separates thousands and writes UTC times', () => {
    assert.match(count(1234567), /^1\D?234\D?567$/);
    assert.equal(isoUtc(1780315200000), '2026-06-01T12:00:00Z');
  });
});

describe('states', () => {
  it('labels inferred states as such and orders finished first', () => {
    assert.equal(stateInfo('UNKNOWN_NODE_DIED').label, 'LOST WITH NODE (inferred)');
    assert.ok(stateInfo('UNKNOWN_JOB_FINISHED').inferred);
    assert.equal(stateInfo('SOMETHING_NEW').group, 'unknown');
    const order = orderedStates({ RUNNING: 1, FAILED: 2, FINISHED: 3, NIL: 0 }).map(([i]) => i.state);
    assert.deepEqual(order, ['FINISHED', 'FAILED', 'RUNNING']);
  });
});

function session(over: Partial<SessionRow>): SessionRow {
  return {
    cluster: 'c', session_name: 's', session: 'c/s', first_event_time_ms: 1, last_event_time_ms: 2, status: 'idle',
    manifests: { writers: 3, objects_without_manifest: 0, gaps: 0, gap_events: 0, missing_events: 0 }, ...over,
  };
}

describe("the manifests' verdict", () => {
  it('says no gaps only across the writers checked', () => {
    assert.equal(verdict(session({})).text, 'No gaps found across 3 writers');
    assert.deepEqual(verdict(session({ status: 'live' })).notes, ['final once idle']);
  });
  it('counts what is missing', () => {
    const v = verdict(session({ manifests: { writers: 1, objects_without_manifest: 0, gaps: 2, gap_events: 3210, missing_events: 3210 } }));
    assert.ok(v.bad);
    assert.match(v.text, /^3,?210 events missing \(2 gaps in the sequences of 1 writer\)$/);
  });
  it('tells counted drops from missing objects', () => {
    const v = verdict(session({ manifests: { writers: 2, objects_without_manifest: 0, gaps: 1, gap_events: 5, missing_events: 0 } }));
    assert.ok(!v.bad);
    assert.match(v.text, /No objects missing across 2 writers; 5 events were dropped/);
  });
  it('does not claim what cannot be checked', () => {
    const v = verdict(session({ status: 'live', manifests: { writers: 0, objects_without_manifest: 8, gaps: 0, gap_events: 0, missing_events: 0 } }));
    assert.match(v.text, /^Not checkable: 8 objects/);
    assert.deepEqual(v.notes, []);
  });
  it('gives a removed session its reason', () => {
    const v = verdict(session({ status: 'removed', removed: { reason: 'retention', time_ms: 1780315200000, detail: 'index.retention is 720h' } }));
    assert.equal(v.text, 'Removed by retention at 2026-06-01T12:00:00Z: index.retention is 720h');
  });
});

describe('the dashboard URL', () => {
  const p = new URLSearchParams('session=c%2Fs&unit=attempts&dur=running&state=FAILED,RUNNING&function=f&function=g'
    + '&total_gt_us=1023&total_le_us=2047&q=KeyError&sort=total_duration&order=desc&cursor=abc&cols=state,total&bogus=1');
  it('reads its state with defaults', () => {
    const s = readState(p);
    assert.equal(s.unit, 'attempts');
    assert.equal(s.dur, 'running');
    assert.deepEqual(s.cols, ['state', 'total']);
    assert.equal(readState(new URLSearchParams('')).sort, 'start_time');
    assert.equal(readState(new URLSearchParams('dur=bogus')).dur, 'total');
  });
  it('passes the task filters through and nothing else', () => {
    assert.equal(countParams(p).toString(),
      'state=FAILED%2CRUNNING&function=f&function=g&total_gt_us=1023&total_le_us=2047&session=c%2Fs&unit=attempts&q=KeyError');
    const list = listParams(p, 50);
    assert.equal(list.get('cursor'), 'abc');
    assert.equal(list.get('limit'), '50');
    assert.ok(!list.has('bogus') && !list.has('dur') && !list.has('cols'));
    const ex = exportParams(p, 'csv');
    assert.ok(!ex.has('cursor') && !ex.has('limit'));
    assert.equal(ex.get('format'), 'csv');
  });
  it('makes one chip per value, a band one chip, and removing one keeps the rest', () => {
    const c = chips(p);
    assert.deepEqual(c.map((x) => `${x.name}: ${x.value}`),
      ['state: FAILED', 'state: RUNNING', 'function: f', 'function: g', 'total duration: over 1.02 ms up to 2.05 ms', 'search: KeyError']);
    assert.deepEqual(c[0].remove, { state: ['RUNNING'], cursor: null });
    assert.deepEqual(c[4].remove, { total_gt_us: null, total_le_us: null, cursor: null });
  });
});

describe('the table and the histograms', () => {
  it('names a bucket by its count and band', () => {
    assert.equal(bucketName({ gt_us: 1023, le_us: 2047, count: 12 }, 'tasks', 'total'),
      '12 tasks with total duration over 1.02 ms up to 2.05 ms');
    assert.equal(bucketName({ gt_us: 1023, le_us: null, count: 1 }, 'attempts', 'pending'),
      '1 attempt with pending duration over 1.02 ms');
  });
  it('chooses columns and sort orders', () => {
    assert.deepEqual(shownColumns(null).map((c) => c.id), DEFAULT_COLUMNS);
    assert.deepEqual(shownColumns(['total', 'nope', 'state']).map((c) => c.id), ['state', 'total']);
    assert.equal(defaultOrder('total_duration'), 'desc');
    assert.equal(defaultOrder('start_time'), 'asc');
    assert.equal(defaultOrder('name'), 'asc');
  });
});
