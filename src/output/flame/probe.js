// SPDX-License-Identifier: GPL-2.0-or-later
// probe.js - the flame page's read-only view for tests and scripts
// (window.stacktopFlame, tests/live/flame-browser.js): what the last draw
// painted, the page's state, the function table and the sandwich's
// callers as shown, the differential's numbers, the tooltip. It reads
// page.js's state and changes nothing.
// @ts-check
'use strict';

const { KIND, label, nameLabel } = require('./tree.js');
const { ROW } = require('./zoom.js');
const { diffBefore, diffChange, diffGone } = require('./diff.js');
const { measureName } = require('./text.js');

/**
 * @param {object} o
 * @param {import('./tree.js').Profile} o.P
 * @param {any} o.S  page.js's state
 * @param {import('./diff.js').Before|null} o.before
 * @param {ReturnType<typeof import('./colour.js').colours>} o.col
 * @param {HTMLElement} o.tip
 * @param {() => import('./diff.js').Before|null} o.shownBefore  BEFORE while its colours are on
 * @param {(t: import('./tree.js').Tree) => (i: number) => boolean} o.matcher  the search's matches
 * @param {() => ArrayLike<number>} o.tot  what widths are proportional to
 */
function probe({ P, S, before, col, tip, shownBefore, matcher, tot }) {
	return {
		frames() {
			const t = S.t, d = S.drawn, isMatch = matcher(t), out = [];
			for (let k = 0; k < d.node.length; k++) {
				const i = d.node[k], path = [];
				for (let a = i; a > 0; a = t.parent[a])
					path.unshift(label(P, t, a));
				const nm = i > 0 ? P.names[t.nameOf[i]] : null;
				out.push({ node: i, name: label(P, t, i), where: nm && nm[2] ? String(nm[2]) : '', path,
					kind: i ? KIND[t.kindOf[i]] : 'all', x: d.x[k], w: d.w[k], y: d.y[k], h: ROW - 1,
					hits: t.totH[i], weight: P.weighted ? t.totW[i] : null, match: isMatch(i) });
			}
			return out;
		},
		state() {
			const v = S.view;
			return { zoom: S.zoom, zoomName: label(P, S.t, S.zoom), cursor: S.cursor, width: S.drawn.cssW,
				nodes: S.t.N, names: P.names.length, measure: measureName(P.meta, S.byWeight),
				total: tot()[0], tracing: S.showTracing, inverted: S.inverted, leftHeavy: S.leftHeavy,
				view: v.mode, leafRooted: v.leafRooted,
				transforms: v.transforms.map((t) => t.t + ':' + nameLabel(P, t.name)),
				fn: v.fn >= 0 ? nameLabel(P, v.fn) : null, event: v.event, proc: v.proc, cpu: v.cpu,
				hash: location.hash };
		},
		// the function table as shown (sorted, searched)
		table() {
			return S.tableRows.map((r) => ({ name: r.label, where: r.where, self: r.self, total: r.total,
				selfp: r.selfp, totalp: r.totalp }));
		},
		// the sandwich's callers as drawn (root, the function, first)
		callers() {
			return S.cdrawn.map((d) => ({ name: d.name, path: d.path, hits: d.hits, weight: d.weight,
				x: d.x, w: d.w, y: d.y }));
		},
		// the differential: each painted frame's BEFORE hits and change, BEFORE's frames gone
		diff() {
			if (!before)
				return null;
			const t = S.t, on = shownBefore() !== null;
			return { on, source: before.source, total: before.tot[0],
				frames: S.drawn.node.map((i) => ({ name: label(P, t, i), hits: t.totH[i],
					before: on ? diffBefore(t, before, i) : null, change: on ? diffChange(t, before, i) : null,
					colour: col.colour(t, i, shownBefore()) })),
				gone: diffGone(t, before) };
		},
		// the text of the tooltip now shown ('' when hidden)
		tip() {
			return tip.hidden ? '' : tip.textContent;
		},
	};
}

module.exports = { probe };
