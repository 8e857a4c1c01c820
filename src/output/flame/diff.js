// SPDX-License-Identifier: GPL-2.0-or-later
// diff.js - the differential page (--diff BEFORE AFTER -o d.html): BEFORE's
// tree ("base" in the profile) paired with the graph's frames.
//
// Each frame of the graph is looked up by its path from the root (names,
// kinds and modules alike); its change is the change of its share of all
// hits, each side's share of its own total (difffolded.pl's normalised
// mode): red grew, blue shrank, white the same. It colours the
// caller-rooted graph without transforms or filters (diffOn()).
// @ts-check
'use strict';

const { pairTable } = require('./tree.js');
const { checkNames, readNodes } = require('./decode.js');

/**
 * @typedef {object} Before  BEFORE's tree, as the pairing needs it
 * @property {number} n  its nodes
 * @property {ReturnType<typeof pairTable>} child  (its node, a name id of the graph) -> its child
 * @property {Float64Array} tot  each node's total hits
 * @property {Int32Array} par
 * @property {(j: number) => string} label
 * @property {string} source  where BEFORE was read from
 */

/**
 * BEFORE's tree of a profile document: null when there is none, or when
 * it is damaged (then `damaged` says so)
 * @param {any} data  the profile document
 * @param {import('./tree.js').Profile} P  the graph's profile
 * @returns {{before: Before|null, damaged: string}}
 */
function readBefore(data, P) {
	const b = data.base;
	if (!b || !Array.isArray(b.names) || !(b.stride >= 3))
		return { before: null, damaged: '' };
	let t;
	try {
		checkNames(b.names);
		t = readNodes(b, data.cols && data.cols.base_up ? data.cols : null, 'base_', b.stride,
			b.names.length);
	} catch (e) {
		return { before: null, damaged: 'the BEFORE side of this differential page is damaged (' +
			e.message + '): shown as a plain flame graph' };
	}
	const n = t.N, par = t.parent, tot = new Float64Array(t.selfH);
	for (let i = n - 1; i > 0; i--)
		tot[par[i]] += tot[i];
	// BEFORE's names as this tree's name ids (by label, kind and module;
	// -1: none here), then its nodes by (parent, that id)
	const key = (nm) => (nm ? nm[0] + '\u0001' + nm[1] + '\u0001' + (nm[2] || '') : '?');
	const ids = new Map();
	for (let k = 0; k < P.NN; k++)
		ids.set(key(P.names[k]), k);
	const as = new Int32Array(b.names.length);
	for (let k = 0; k < b.names.length; k++) {
		const v = ids.get(key(b.names[k]));
		as[k] = v === undefined ? -1 : v;
	}
	const child = pairTable();
	for (let i = 1; i < n; i++) {
		const nm = t.nameOf[i], a = nm >= 0 && nm < as.length ? as[nm] : -1;
		if (a >= 0)
			child.put(par[i], a, i);
	}
	const label = (j) => {
		const nm = b.names[t.nameOf[j]];
		return nm ? String(nm[0]) : '?';
	};
	return { before: { n, child, tot, par, label, source: String(b.source || 'BEFORE') }, damaged: '' };
}

/**
 * The differential's colours are on: a BEFORE, and the plain caller-rooted graph
 * @param {Before|null} before
 * @param {{mode: string, leafRooted: boolean, transforms: any[]}} view
 * @param {boolean} filtering  the page's filters are on
 */
function diffOn(before, view, filtering) {
	return before !== null && view.mode === 'flame' && !view.leafRooted && !view.transforms.length &&
		!filtering;
}

/**
 * The change of a frame's share of all hits, in points (after minus before)
 * @param {import('./tree.js').Tree} t  mapped (diffMap())
 * @param {Before} before
 * @param {number} i
 */
function diffChange(t, before, i) {
	const j = t.bmap[i], b = j < 0 ? 0 : before.tot[j];
	return 100 * (t.totH[i] / (t.totH[0] || 1) - b / (before.tot[0] || 1));
}

/**
 * A tree's nodes mapped into BEFORE's (-1: a path BEFORE does not have),
 * kept on the tree (t.bmap, and t.bmax its largest change)
 * @param {import('./tree.js').Tree} t
 * @param {Before} before
 */
function diffMap(t, before) {
	if (!t.bmap) {
		const N = t.N, m = new Int32Array(N);
		for (let k = 1; k < N; k++) {
			const p = m[t.parent[k]];
			m[k] = p < 0 ? -1 : before.child.get(p, t.nameOf[k]);
		}
		t.bmap = m;
		let mx = 0;
		for (let k = 1; k < N; k++)
			mx = Math.max(mx, Math.abs(diffChange(t, before, k)));
		t.bmax = mx;
	}
	return t.bmap;
}

/**
 * BEFORE's hits of a frame's path
 * @param {import('./tree.js').Tree} t
 * @param {Before} before
 * @param {number} i
 */
function diffBefore(t, before, i) {
	const j = diffMap(t, before)[i];
	return j < 0 ? 0 : before.tot[j];
}

/**
 * A frame's colour on the differential: red grew, blue shrank, by how much
 * of the largest change
 * @param {import('./tree.js').Tree} t
 * @param {Before} before
 * @param {number} i
 */
function diffColour(t, before, i) {
	diffMap(t, before);
	const c = diffChange(t, before, i);
	if (Math.abs(c) < 1e-9)
		return 'hsl(0,0%,94%)';
	const r = t.bmax ? Math.min(1, Math.abs(c) / t.bmax) : 0;
	return 'hsl(' + (c > 0 ? 0 : 220) + ',85%,' + (92 - 42 * r).toFixed(1) + '%)';
}

/**
 * BEFORE's frames gone from the graph: the top of each subtree it no
 * longer has, heaviest first
 * @param {import('./tree.js').Tree} t
 * @param {Before} before
 */
function diffGone(t, before) {
	const m = diffMap(t, before), seen = new Uint8Array(before.n), out = [];
	for (let k = 1; k < t.N; k++)
		if (m[k] >= 0)
			seen[m[k]] = 1;
	seen[0] = 1;
	for (let j = 1; j < before.n; j++) {
		if (seen[j] || !seen[before.par[j]])
			continue;
		const path = [];
		for (let a = j; a > 0; a = before.par[a])
			path.unshift(before.label(a));
		out.push({ path, hits: before.tot[j], share: 100 * before.tot[j] / (before.tot[0] || 1) });
	}
	return out.sort((a, b) => b.hits - a.hits);
}

module.exports = { readBefore, diffOn, diffMap, diffBefore, diffChange, diffColour, diffGone };
