// SPDX-License-Identifier: GPL-2.0-or-later
// tree.js - the flame page's trees (page.js): typed arrays, parents before
// their callees, and the layout of a tree's frames left to right.
//
// The writer's tree (preorder, children in name order) is the base; the
// views (filters, transforms, inverted, sandwich) are trees derived from
// it (model.js) in the same shape. Children are in kids[cstart[i]..]:
// name order (the names are sorted), or by weight when left-heavy.
// Nothing here keeps state of its own: a tree is an object its caller
// holds, and the profile (decode.js) says what its names are.
// @ts-check
'use strict';

/**
 * @typedef {object} Profile  what every module reads of the page's profile
 * @property {Array<Array<any>>} names  [label, kind(, module)] each
 * @property {number} NN  names.length
 * @property {Uint8Array} nameKind  each name's kind (an index of KIND)
 * @property {boolean} weighted  the nodes carry a weight besides their hits
 * @property {any} meta  the writer's facts (host, mode, weight, losses...)
 * @property {number[]} attrs  the records' [event, pid, cpu] triples, flat
 * @property {any[]} evNames  the events by index
 * @property {Map<number, string>} comms  pid -> command
 */

/**
 * @typedef {object} Tree
 * @property {number} N  nodes; node 0 is the root ("all")
 * @property {Int32Array} nameOf  a name id each (-1 for the root)
 * @property {Uint16Array} depthOf
 * @property {Int32Array} parent  -1 for the root
 * @property {Float64Array} selfH  the hits of the stacks ending there
 * @property {Float64Array|null} selfW  their weight (weighted profiles)
 * @property {Float64Array} [totH]  the hits of the stacks through it
 * @property {Float64Array|null} [totW]
 * @property {Uint8Array} [kindOf]
 * @property {Int32Array} [cstart]  node i's callees: kids[cstart[i]..cstart[i + 1]]
 * @property {Int32Array} [kids]
 * @property {Float64Array} [start]  where it starts in its caller (layout())
 * @property {string} [order]  how kids is sorted: 'name', 'heavyH', 'heavyW'
 * @property {Int32Array} [bmap]  its nodes in BEFORE's tree (diff.js)
 * @property {number} [bmax]
 */

const KIND = Object.freeze(['kernel', 'module', 'user', 'tracing', 'command', 'pid', 'other']);
const K_TRACING = 3;
const KIND_TEXT = Object.freeze(['kernel', 'kernel module', 'user',
	'tracing machinery (hidden unless "tracing frames")', 'command', 'process id', 'marker']);

/**
 * The totals, the kinds and the callee lists of a tree whose nodes are read
 * @param {Tree} t  filled in place
 * @param {Profile} P
 * @returns {Tree}
 */
function shape(t, P) {
	const n = t.N, parent = t.parent, selfH = t.selfH, selfW = t.selfW, nameOf = t.nameOf;
	const NN = P.NN, nameKind = P.nameKind;
	const totH = new Float64Array(selfH), totW = P.weighted ? new Float64Array(selfW) : null;
	for (let i = n - 1; i > 0; i--) {
		totH[parent[i]] += totH[i];
		if (totW)
			totW[parent[i]] += totW[i];
	}
	// (loops fused: this runs once at open, before the JIT has compiled it)
	const kindOf = new Uint8Array(n), cstart = new Int32Array(n + 1);
	for (let i = 1; i < n; i++) {
		const k = nameOf[i];
		kindOf[i] = k >= 0 && k < NN ? nameKind[k] : 6;
		cstart[parent[i] + 1]++;
	}
	for (let i = 0; i < n; i++)
		cstart[i + 1] += cstart[i];
	const kids = new Int32Array(Math.max(n - 1, 1));
	const fill = cstart.slice(0, n);
	for (let i = 1; i < n; i++)
		kids[fill[parent[i]]++] = i;
	Object.assign(t, { totH, totW, kindOf, cstart, kids, start: new Float64Array(n), order: 'name' });
	return t;
}

/**
 * (parent, name) -> node, -1 for none: open addressing in typed arrays (a
 * Map of numbers past 2^31 is several times slower on the 10^5-stack
 * page, a Map of strings slower still)
 */
function pairTable() {
	let cap = 1 << 12, used = 0;
	let kp = new Int32Array(cap).fill(-1), kn = new Int32Array(cap), kv = new Int32Array(cap);
	const slot = (p, nm, m) => (Math.imul(p, 0x9e3779b1) ^ Math.imul(nm + 1, 0x85ebca77)) >>> 0 & m;
	function find(p, nm) {
		let h = slot(p, nm, cap - 1);
		while (kp[h] >= 0 && (kp[h] !== p || kn[h] !== nm))
			h = (h + 1) & (cap - 1);
		return h;
	}
	function grow() {
		const op = kp, on = kn, ov = kv;
		cap *= 2;
		kp = new Int32Array(cap).fill(-1);
		kn = new Int32Array(cap);
		kv = new Int32Array(cap);
		for (let k = 0; k < op.length; k++) {
			if (op[k] < 0)
				continue;
			const h = find(op[k], on[k]);
			kp[h] = op[k];
			kn[h] = on[k];
			kv[h] = ov[k];
		}
	}
	return {
		/** @param {number} p @param {number} nm */
		get(p, nm) {
			const h = find(p, nm);
			return kp[h] >= 0 ? kv[h] : -1;
		},
		/** @param {number} p @param {number} nm @param {number} v */
		put(p, nm, v) {
			const h = find(p, nm);
			if (kp[h] < 0) {
				kp[h] = p;
				kn[h] = nm;
				used++;
			}
			kv[h] = v;
			if (used * 2 > cap)
				grow();
		},
	};
}

/**
 * A tree grown node by node (model.js): a child looked up by (parent,
 * name) in a pairTable()
 * @param {Profile} P
 */
function grower(P) {
	const g = { nameOf: [-1], parent: [-1], depthOf: [0], selfH: [0], selfW: [0],
		/** @type {(p: number, nm: number) => number} */ add: null,
		/** @type {(p: number, nm: number) => number} */ child: null,
		/** @type {() => Tree} */ done: null };
	const tab = pairTable();
	// a new node, known to be new (invert() groups its children first)
	g.add = (p, nm) => {
		const c = g.nameOf.length;
		g.nameOf.push(nm);
		g.parent.push(p);
		g.depthOf.push(g.depthOf[p] + 1);
		g.selfH.push(0);
		g.selfW.push(0);
		return c;
	};
	g.child = (p, nm) => {
		let c = tab.get(p, nm);
		if (c < 0) {
			c = g.add(p, nm);
			tab.put(p, nm, c);
		}
		return c;
	};
	g.done = () => {
		const n = g.nameOf.length;
		const t = { N: n, nameOf: Int32Array.from(g.nameOf), parent: Int32Array.from(g.parent),
			depthOf: Uint16Array.from(g.depthOf), selfH: Float64Array.from(g.selfH),
			selfW: P.weighted ? Float64Array.from(g.selfW) : null };
		shape(t, P);
		// children in name order, as the writer's
		for (let p = 0; p < n; p++)
			if (t.cstart[p + 1] - t.cstart[p] > 1)
				t.kids.subarray(t.cstart[p], t.cstart[p + 1]).sort((a, b) => t.nameOf[a] - t.nameOf[b]);
		return t;
	};
	return g;
}

/**
 * What widths are proportional to: the hits, or the weight
 * @param {Tree} t
 * @param {boolean} byWeight
 * @returns {Float64Array}
 */
function totals(t, byWeight) {
	return byWeight ? t.totW : t.totH;
}

/**
 * Each frame's callees in name order, or heaviest first (left-heavy), laid
 * out left to right in that order: t.kids sorted (once an order), t.start
 * filled
 * @param {Tree} t
 * @param {boolean} byWeight
 * @param {boolean} leftHeavy
 */
function layout(t, byWeight, leftHeavy) {
	const tot = totals(t, byWeight), nameOf = t.nameOf, N = t.N;
	const cstart = t.cstart, kids = t.kids, start = t.start;
	const want = leftHeavy ? (byWeight ? 'heavyW' : 'heavyH') : 'name';
	if (t.order !== want) {
		const cmp = leftHeavy ? (x, y) => tot[y] - tot[x] || nameOf[x] - nameOf[y]
			: (x, y) => nameOf[x] - nameOf[y];
		for (let p = 0; p < N; p++)
			if (cstart[p + 1] - cstart[p] > 1)
				kids.subarray(cstart[p], cstart[p + 1]).sort(cmp);
		t.order = want;
	}
	for (let p = 0; p < N; p++) {
		let x = start[p];
		for (let k = cstart[p]; k < cstart[p + 1]; k++) {
			start[kids[k]] = x;
			x += tot[kids[k]];
		}
	}
}

/**
 * A frame's label ("all" for the root)
 * @param {Profile} P
 * @param {Tree} t
 * @param {number} i
 */
function label(P, t, i) {
	if (i === 0)
		return 'all';
	const nm = P.names[t.nameOf[i]];
	return nm ? String(nm[0]) : '?';
}

/**
 * A name's label
 * @param {Profile} P
 * @param {number} nm
 */
function nameLabel(P, nm) {
	const n = P.names[nm];
	return n ? String(n[0]) : '?';
}

/**
 * The id of the first name labelled `label`, -1 for none
 * @param {Profile} P
 * @param {string} text
 */
function nameId(P, text) {
	for (let k = 0; k < P.NN; k++)
		if (String(P.names[k][0]) === text)
			return k;
	return -1;
}

/**
 * The tree has frames of the tracing machinery
 * @param {Tree} t
 */
function hasTracing(t) {
	for (let i = 1; i < t.N; i++)
		if (t.kindOf[i] === K_TRACING)
			return true;
	return false;
}

/**
 * The path of names from the root's first callee to `i`
 * @param {Profile} P
 * @param {Tree} t
 * @param {number} i
 */
function pathOf(P, t, i) {
	const p = [];
	for (let a = i; a > 0; a = t.parent[a])
		p.unshift(label(P, t, a));
	return p;
}

module.exports = { KIND, K_TRACING, KIND_TEXT, shape, pairTable, grower, totals, layout, label,
	nameLabel, nameId, hasTracing, pathOf };
