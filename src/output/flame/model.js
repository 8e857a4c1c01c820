// SPDX-License-Identifier: GPL-2.0-or-later
// model.js - the flame page's views as trees derived from the base
// (tree.js): the filters by event, process and CPU, the transforms (focus,
// merge), the inverted graph, the sandwich's callers and callees, and each
// function's self and total. Pure: each takes the trees and the view it
// reads and returns a new tree; only page.js changes the view.
// @ts-check
'use strict';

const { K_TRACING, grower } = require('./tree.js');

/**
 * @typedef {object} View  the page's view (page.js owns it; in the URL fragment)
 * @property {string} mode  'flame' or 'sandwich'
 * @property {boolean} leafRooted  the inverted graph: leaves at the root, callers up
 * @property {Array<{t: string, name: number}>} transforms  'focus'|'merge' of a name
 *	id, in order, undone from the end
 * @property {number} fn  the sandwich's function (a name id), -1 for none
 * @property {number} event  filters: an event index, -1 for all
 * @property {string} proc  'comm:NAME' or 'pid:N', '' for all
 * @property {number} cpu  -1 for all
 */

/**
 * The view filters the records
 * @param {View} view
 */
function filtering(view) {
	return view.event >= 0 || view.proc !== '' || view.cpu >= 0;
}

/**
 * A record (an index of the profile's attrs) passes the view's filters
 * @param {import('./tree.js').Profile} P
 * @param {View} view
 * @param {number} a
 */
function attrPasses(P, view, a) {
	const ev = P.attrs[3 * a], pid = P.attrs[3 * a + 1], cpu = P.attrs[3 * a + 2];
	if (view.event >= 0 && ev !== view.event)
		return false;
	if (view.cpu >= 0 && cpu !== view.cpu)
		return false;
	if (view.proc.startsWith('pid:') && String(pid) !== view.proc.slice(4))
		return false;
	if (view.proc.startsWith('comm:') && P.comms.get(pid) !== view.proc.slice(5))
		return false;
	return true;
}

/**
 * The base's self counts under the view's filters
 * @param {import('./tree.js').Profile} P
 * @param {import('./tree.js').Tree} base
 * @param {View} view
 * @param {import('./decode.js').Splits} sp  the records
 * @returns {[Float64Array, Float64Array|null]}
 */
function filteredSelf(P, base, view, sp) {
	if (!filtering(view))
		return [base.selfH, base.selfW];
	const weighted = P.weighted;
	const h = new Float64Array(base.N), w = weighted ? new Float64Array(base.N) : null;
	const ok = new Map();
	for (let k = 0; k < sp.n; k++) {
		const a = sp.attr[k], i = sp.node[k];
		let pass = ok.get(a);
		if (pass === undefined)
			ok.set(a, (pass = attrPasses(P, view, a)));
		if (!pass || i >= base.N)
			continue;
		h[i] += sp.h[k];
		if (weighted)
			w[i] += sp.w[k];
	}
	return [h, w];
}

/**
 * Transforms (Firefox Profiler's): "merge" drops a function's frames (its
 * callees join its caller); "focus" keeps the stacks through it, rooted at
 * its outermost frame; tracing frames hidden are merged too.
 * @param {import('./tree.js').Profile} P
 * @param {import('./tree.js').Tree} src  parents before callees
 * @param {ArrayLike<number>} sh  its self counts
 * @param {ArrayLike<number>|null} sw
 * @param {Set<number>} merge  name ids
 * @param {number[]} focus  name ids, in order
 * @param {boolean} dropTracing
 */
function transform(P, src, sh, sw, merge, focus, dropTracing) {
	const g = grower(P), weighted = P.weighted;
	const map = new Int32Array(src.N), stage = new Int32Array(src.N);
	map[0] = focus.length ? -1 : 0;
	for (let i = 1; i < src.N; i++) {
		const p = src.parent[i], nm = src.nameOf[i];
		let m = map[p], st = stage[p];
		if (merge.has(nm) || (dropTracing && src.kindOf[i] === K_TRACING)) {
			// as the caller
		} else if (st < focus.length) {
			if (nm === focus[st] && ++st === focus.length)
				m = g.child(0, nm);
		} else if (m >= 0) {
			m = g.child(m, nm);
		}
		map[i] = m;
		stage[i] = st;
	}
	for (let i = 0; i < src.N; i++) {
		if (map[i] < 0 || (i === 0 && focus.length))
			continue;
		g.selfH[map[i]] += sh[i];
		if (weighted)
			g.selfW[map[i]] += sw[i];
	}
	return g.done();
}

/**
 * The inverted graph: each stack from its leaf up to its root; with
 * `upTo`, only the stacks through that function, from its outermost frame
 * up (the sandwich's callers)
 * @param {import('./tree.js').Profile} P
 * @param {import('./tree.js').Tree} src
 * @param {number} upTo  a name id, -1 for none
 */
function invert(P, src, upTo) {
	const g = grower(P), weighted = P.weighted;
	// the stacks as (frame, hits, weight): from the leaf, or from the
	// outermost frame of upTo; each step goes one caller up
	const start = [], hs = [], ws = [];
	for (let n = 1; n < src.N; n++) {
		const h = src.selfH[n], w = weighted ? src.selfW[n] : 0;
		if (!h && !w)
			continue;
		let from = n;
		if (upTo >= 0) {
			from = -1;
			for (let a = n; a > 0; a = src.parent[a])
				if (src.nameOf[a] === upTo)
					from = a;
			if (from < 0)
				continue;
		}
		start.push(from);
		hs.push(h);
		ws.push(w);
	}
	// grouped by the name of their next frame, a level at a time: each
	// inverted node made once, no lookup
	const slot = new Int32Array(P.NN).fill(-1);
	const work = [[0, Int32Array.from(start), Float64Array.from(hs), Float64Array.from(ws)]];
	while (work.length) {
		const [inv, at, h, w] = /** @type {[number, Int32Array, Float64Array, Float64Array]} */ (work.pop());
		const groups = [], gname = [];
		for (let k = 0; k < at.length; k++) {
			const a = at[k];
			if (a <= 0) {
				g.selfH[inv] += h[k];
				if (weighted)
					g.selfW[inv] += w[k];
				continue;
			}
			const nm = src.nameOf[a];
			let gi = slot[nm];
			if (gi < 0) {
				gi = slot[nm] = groups.length;
				groups.push([]);
				gname.push(nm);
			}
			groups[gi].push(k);
		}
		for (let gi = 0; gi < groups.length; gi++) {
			slot[gname[gi]] = -1;
			const c = g.add(inv, gname[gi]), ks = groups[gi];
			if (ks.length === 1) {
				// one stack left: its callers are a chain, made at once
				let node = c;
				for (let a = src.parent[at[ks[0]]]; a > 0; a = src.parent[a])
					node = g.add(node, src.nameOf[a]);
				g.selfH[node] += h[ks[0]];
				if (weighted)
					g.selfW[node] += w[ks[0]];
				continue;
			}
			const nat = new Int32Array(ks.length), nh = new Float64Array(ks.length), nw = new Float64Array(ks.length);
			for (let j = 0; j < ks.length; j++) {
				nat[j] = src.parent[at[ks[j]]];
				nh[j] = h[ks[j]];
				nw[j] = w[ks[j]];
			}
			work.push([c, nat, nh, nw]);
		}
	}
	return g.done();
}

/**
 * Each function's self and total (a stack through it twice counts once)
 * @param {import('./tree.js').Profile} P
 * @param {import('./tree.js').Tree} src
 */
function functions(P, src) {
	const NN = P.NN, weighted = P.weighted;
	const self = new Float64Array(NN), total = new Float64Array(NN);
	const selfw = new Float64Array(NN), totalw = new Float64Array(NN);
	const on = new Int32Array(NN);
	const st = [0];
	while (st.length) {
		const n = st.pop();
		if (n < 0) {
			on[src.nameOf[~n]]--;
			continue;
		}
		if (n > 0) {
			const nm = src.nameOf[n];
			self[nm] += src.selfH[n];
			if (weighted)
				selfw[nm] += src.selfW[n];
			if (!on[nm]++) {
				total[nm] += src.totH[n];
				if (weighted)
					totalw[nm] += src.totW[n];
			}
			st.push(~n);
		}
		for (let k = src.cstart[n]; k < src.cstart[n + 1]; k++)
			st.push(src.kids[k]);
	}
	return { self, total, selfw, totalw };
}

/**
 * The trees a view shows, from the base: `flat` the graph the views start
 * from (filters, transforms), `tree` the one on show, `callers` the
 * sandwich's callers (inverted) or null
 * @param {import('./tree.js').Profile} P
 * @param {import('./tree.js').Tree} base
 * @param {boolean} baseTracing  the base has tracing frames (to merge when hidden)
 * @param {View} view
 * @param {boolean} showTracing
 * @param {import('./decode.js').Splits} splits  the records
 */
function derive(P, base, baseTracing, view, showTracing, splits) {
	const [sh, sw] = filteredSelf(P, base, view, splits);
	const merge = new Set(), focus = [];
	for (const t of view.transforms) {
		if (t.t === 'merge')
			merge.add(t.name);
		else
			focus.push(t.name);
	}
	// the base as it is when nothing changes its stacks: the flame graph
	// hides its tracing frames itself (zoom.js hidden()), the other views need them merged
	const plain = !filtering(view) && !view.transforms.length &&
		((view.mode === 'flame' && !view.leafRooted) || showTracing || !baseTracing);
	const flat = plain ? base : transform(P, base, sh, sw, merge, focus, !showTracing);
	let tree = flat, callers = null;
	if (view.mode === 'sandwich' && view.fn >= 0) {
		callers = invert(P, flat, view.fn);
		tree = transform(P, flat, flat.selfH, flat.selfW, new Set(), [view.fn], false);
	} else if (view.leafRooted) {
		tree = invert(P, flat, -1);
	}
	return { flat, tree, callers };
}

/**
 * The names a search matches (by the name, or by its module or file): a
 * byte each, 1 for a match; null for an empty search; an Error for a bad
 * regular expression
 * @param {Array<Array<any>>} names
 * @param {string} q
 * @param {boolean} regex
 * @param {boolean} matchCase
 * @returns {Uint8Array|null}
 */
function matchNames(names, q, regex, matchCase) {
	if (!q)
		return null;
	let re = null;
	if (regex) {
		try {
			re = new RegExp(q, matchCase ? '' : 'i');
		} catch (e) {
			throw new Error('bad regular expression');
		}
	}
	const needle = matchCase ? q : q.toLowerCase();
	const test = (t) => (re ? re.test(t) : (matchCase ? t : t.toLowerCase()).includes(needle));
	const m = new Uint8Array(names.length);
	for (let k = 0; k < names.length; k++) {
		const nm = names[k];
		m[k] = test(String(nm[0])) || (nm[2] && test(String(nm[2]))) ? 1 : 0;
	}
	return m;
}

module.exports = { matchNames, filtering, attrPasses, filteredSelf, transform, invert, functions, derive };
