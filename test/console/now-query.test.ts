import { describe, expect, it } from 'vitest';
import {
  changed,
  filtersFrom,
  hashOf,
  incidentsPath,
  isLive,
  isoFromLocalInput,
  keeps,
  localInputValue,
  type NowFilters,
} from '../../console/src/now-query.js';

/** The Now view's filters in the hash, and the list call they make. */

const query = (text: string) => new URLSearchParams(text);
const plain = filtersFrom(query(''));

describe('Now view filters', () => {
  it('default to the unresolved incidents by urgency, at #/', () => {
    expect(plain).toEqual({
      q: '',
      severity: '',
      show: 'unresolved',
      since: '',
      until: '',
      order: 'urgency',
    });
    expect(hashOf(plain)).toBe('#/');
    expect(isLive(plain)).toBe(true);
    expect(incidentsPath(plain)).toBe(
      '/api/v1/incidents?status=open,acknowledged&order=urgency&limit=50',
    );
  });

  it('make a link of every filter and read it back', () => {
    const filters: NowFilters = {
      q: 'disk full',
      severity: 'P0',
      show: 'all',
      since: '2026-11-25T00:00:00.000Z',
      until: '2026-11-26T00:00:00.000Z',
      order: 'urgency',
    };
    const hash = hashOf(filters);
    expect(hash).toBe(
      '#/?q=disk+full&severity=P0&show=all&since=2026-11-25T00%3A00%3A00.000Z&until=2026-11-26T00%3A00%3A00.000Z&order=urgency',
    );
    expect(filtersFrom(query(hash.slice(3)))).toEqual(filters);
    expect(incidentsPath(filters, 'c1')).toBe(
      '/api/v1/incidents?severity=P0&q=disk+full&since=2026-11-25T00%3A00%3A00.000Z&until=2026-11-26T00%3A00%3A00.000Z&order=urgency&limit=50&cursor=c1',
    );
    expect(isLive(filters)).toBe(false);
  });

  it('read history newest first unless an order is chosen', () => {
    expect(filtersFrom(query('show=resolved')).order).toBe('recent');
    expect(filtersFrom(query('since=2026-11-25T00:00:00Z')).order).toBe('recent');
    expect(hashOf(filtersFrom(query('show=all')))).toBe('#/?show=all');
    expect(changed(plain, { show: 'all' }).order).toBe('recent');
    expect(changed(plain, { show: 'all', order: 'urgency' }).order).toBe('urgency');
    const chosen = changed(plain, { order: 'recent' });
    expect(changed(chosen, { severity: 'P1' }).order).toBe('recent');
    expect(changed(changed(plain, { show: 'all' }), { show: 'unresolved' }).order).toBe('urgency');
  });

  it('ignore what is not a filter value: unknown words, bad times, a search past 200 characters', () => {
    const filters = filtersFrom(
      query(`severity=P9&show=everything&order=random&since=yesterday&q=${'x'.repeat(250)}`),
    );
    expect(filters).toMatchObject({
      severity: '',
      show: 'unresolved',
      since: '',
      order: 'urgency',
    });
    expect(filters.q).toHaveLength(200);
  });

  it('keep in a live list the rows of the chosen statuses and severity', () => {
    const p0 = { severity: 'P0', status: 'open' };
    expect(keeps(plain, p0)).toBe(true);
    expect(keeps(plain, { ...p0, status: 'resolved' })).toBe(false);
    expect(keeps(changed(plain, { severity: 'P1' }), p0)).toBe(false);
    expect(keeps(changed(plain, { show: 'acknowledged' }), p0)).toBe(false);
  });

  it("turn a datetime-local value (the reader's zone) into ISO and back", () => {
    const iso = isoFromLocalInput('2026-11-26T03:15');
    expect(new Date(iso).getHours()).toBe(3);
    expect(localInputValue(iso)).toBe('2026-11-26T03:15');
    expect(isoFromLocalInput('')).toBe('');
    expect(isoFromLocalInput('not a time')).toBe('');
  });
});
