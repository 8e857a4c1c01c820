// SPDX-License-Identifier: GPL-2.0-or-later
// text.js - the flame page's words and numbers: counts and shares as the
// page writes them, a frame's description (the tooltip, the status line,
// screen readers), the header's facts, counts and notes. Pure: page.js
// puts them on the page.
// @ts-check
'use strict';

const { KIND_TEXT, K_TRACING, label } = require('./tree.js');
const { hidden, inZoom } = require('./zoom.js');
const { diffBefore, diffChange, diffGone } = require('./diff.js');

/**
 * 1,234,567 (as toLocaleString('en-US'), without loading the locale's data
 * at open: a tenth of a small page's open time)
 * @param {number} n
 */
function num(n) {
	return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * `a` as a share of `b`: "12.5%", "0.47%"
 * @param {number} a
 * @param {number} b
 */
function pct(a, b) {
	if (!b)
		return '0%';
	const p = 100 * a / b;
	return (p >= 10 || p === 0 ? p.toFixed(1) : p.toPrecision(2)).replace(/\.0$/, '') + '%';
}

/**
 * A weight in its unit (ns, bytes) made short, else a count
 * @param {any} meta  the profile's
 * @param {number} v
 */
function amount(meta, v) {
	const unit = meta.weight ? meta.weight.unit : 'count';
	const three = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
	if (unit === 'nanoseconds') {
		if (v < 1e3) return num(v) + ' ns';
		if (v < 1e6) return three(v / 1e3) + ' µs';
		if (v < 1e9) return three(v / 1e6) + ' ms';
		return three(v / 1e9) + ' s';
	}
	if (unit === 'bytes') {
		if (v < 1024) return num(v) + ' B';
		if (v < 1048576) return three(v / 1024) + ' KiB';
		if (v < 1073741824) return three(v / 1048576) + ' MiB';
		return three(v / 1073741824) + ' GiB';
	}
	return num(v);
}

/**
 * What the widths measure
 * @param {any} meta
 * @param {boolean} byWeight
 */
function measureName(meta, byWeight) {
	return byWeight ? (meta.weight.name || 'weight') : 'hits';
}

/**
 * A frame described, a line each: its kind, its hits (of all, of the zoomed
 * frame), its weight, its self counts, and on the differential its BEFORE
 * @param {import('./tree.js').Profile} P
 * @param {import('./tree.js').Tree} t
 * @param {number} i
 * @param {{zoom: number, showTracing: boolean, before: import('./diff.js').Before|null}} o
 *	what the page shows: `before` only while the differential's colours are on
 */
function describe(P, t, i, o) {
	const { zoom, showTracing, before } = o, weighted = P.weighted, meta = P.meta;
	const totH = t.totH, totW = t.totW, cstart = t.cstart, kids = t.kids;
	const lines = [];
	const nm = i > 0 ? P.names[t.nameOf[i]] : null;
	let kind = i === 0 ? 'every stack' : KIND_TEXT[t.kindOf[i]] || 'frame';
	if (nm && nm[2])
		kind += ' ' + nm[2];
	lines.push(kind);
	const zoomed = zoom !== 0 && i !== zoom && inZoom(t, zoom, i);
	let self = totH[i], selfw = weighted ? totW[i] : 0;
	for (let k = cstart[i]; k < cstart[i + 1]; k++)
		if (!hidden(t, showTracing, kids[k])) {
			self -= totH[kids[k]];
			if (weighted)
				selfw -= totW[kids[k]];
		}
	let h = 'hits: ' + num(totH[i]) + ', ' + pct(totH[i], totH[0]) + ' of all';
	if (zoomed)
		h += ', ' + pct(totH[i], totH[zoom]) + ' of ' + label(P, t, zoom);
	lines.push(h);
	if (weighted) {
		let w = (meta.weight.name || 'weight') + ': ' + amount(meta, totW[i]) + ', ' +
			pct(totW[i], totW[0]) + ' of all';
		if (zoomed)
			w += ', ' + pct(totW[i], totW[zoom]) + ' of ' + label(P, t, zoom);
		lines.push(w);
	}
	// what the stacks ending here count (hidden callees included)
	lines.push('self: ' + num(self) + ' hits, ' + pct(self, totH[0]) + ' of all' +
		(weighted ? '; ' + (meta.weight.name || 'weight') + ' ' + amount(meta, selfw) + ', ' +
			pct(selfw, totW[0]) : ''));
	if (before) {
		const b = diffBefore(t, before, i), c = diffChange(t, before, i);
		lines.push('before (' + before.source + '): ' + num(b) + ' hits, ' + pct(b, before.tot[0]) +
			' of all' + (b === 0 && i ? ': new' : ''));
		lines.push('change of the share: ' + (c >= 0 ? '+' : '') + c.toFixed(2) + ' points (' +
			pct(totH[i], totH[0]) + ' of this run\'s ' + num(totH[0]) + ' hits, ' +
			pct(b, before.tot[0]) + ' of ' + num(before.tot[0]) + ' before)');
	}
	return lines;
}

/**
 * The header's words: the title, the facts of the run, the counts, the
 * notes (losses, sampling, the differential), and whether the graph has
 * tracing frames to offer
 * @param {import('./tree.js').Profile} P
 * @param {import('./tree.js').Tree} t  the tree on show at open
 * @param {import('./diff.js').Before|null} before
 * @param {string} beforeDamaged  why BEFORE is not read, '' for none
 */
function header(P, t, before, beforeDamaged) {
	const meta = P.meta, totH = t.totH, N = t.N;
	const host = meta.host || '?';
	const f = [];
	if (meta.kernel) f.push('kernel ' + meta.kernel);
	if (meta.mode) f.push('mode ' + meta.mode);
	if (meta.events) f.push('events ' + meta.events);
	if (typeof meta.interval === 'number' && meta.interval > 0)
		f.push((meta.mode === 'replay' ? 'recorded ' : 'interval ') + meta.interval.toFixed(2) + ' s');
	if (meta.time) f.push('written ' + meta.time);
	if (meta.stacktop) f.push('stacktop ' + meta.stacktop);
	const c = [];
	c.push(num(totH[0]) + ' hits in the graph (' +
		(meta.counts === 'delta' ? 'the last interval' : 'since start') + ')');
	if (P.weighted)
		c.push((meta.weight.name || 'weight') + ' ' + amount(meta, t.totW[0]));
	if (typeof meta.matched === 'number')
		c.push(num(meta.matched) + ' of ' + num(meta.stacks) + ' unique stacks');
	if (meta.root && meta.root !== 'none')
		c.push('rooted at the ' + (meta.root === 'pid' ? 'command and pid' : 'command'));
	if (meta.filters) c.push('filters: ' + meta.filters);
	if (meta.user) c.push('user stacks: ' + meta.user);
	// the losses of the period the graph counts
	const delta = meta.counts === 'delta';
	c.push('lost ' + (meta.gone_unit || 'events') + ': ' + num(meta.gone || 0));
	const notes = [];
	if (meta.losses)
		notes.push(meta.losses);
	else if (delta && meta.lost > 0)
		notes.push(num(meta.lost) + ' events were lost since start, none in the last interval');
	if (meta.sampled)
		notes.push(meta.sampled);
	if (meta.user_stacks && / without/.test(meta.user_stacks))
		notes.push(meta.user_stacks + ' (those are the [user stack ...] boxes)');
	if (!N || totH[0] === 0)
		notes.push('no stacks to show');
	if (beforeDamaged)
		notes.push(beforeDamaged);
	if (before) {
		notes.push('differential: widths are this run (' + num(totH[0]) + ' hits), colours the ' +
			'change of each frame\'s share of all hits against ' + before.source + ' (' +
			num(before.tot[0]) + ' hits), each side normalised to its own total: red grew, ' +
			'blue shrank (the caller-rooted graph without transforms or filters)');
		const gone = diffGone(t, before);
		if (gone.length)
			notes.push('gone since then: ' + gone.slice(0, 8).map((g) => g.path.join(' < ') + ' (' +
				num(g.hits) + ' hits, ' + g.share.toFixed(1) + '%)').join(', ') +
				(gone.length > 8 ? ' and ' + (gone.length - 8) + ' more' : ''));
	}
	let tracing = false;
	for (let i = 1; i < N && !tracing; i++)
		tracing = t.kindOf[i] === K_TRACING;
	return { title: 'stacktop flame graph - ' + host, facts: f.join(' · '), counts: c.join(' · '),
		notes: notes.join('; '), tracing };
}

module.exports = { num, pct, amount, measureName, describe, header };
