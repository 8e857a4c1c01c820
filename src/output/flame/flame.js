// SPDX-License-Identifier: GPL-2.0-or-later
// flame.js - the flame graph page of `stacktop --format html` (doc/formats.md).
//
// The writer (src/output/html.c) embeds the profile once, as JSON in
// #stacktop-data: deduplicated frame names and the call tree, merged and
// ordered by the writer (children alphabetical; left-heavy on demand), in preorder. This script
// only lays it out and draws it on a canvas; it reads nothing else and
// requests nothing (the page's Content-Security-Policy forbids it anyway).
// Every string of the profile reaches the page through textContent or the
// canvas, never as markup.
'use strict';
(async function () {
	const KIND = ['kernel', 'module', 'user', 'tracing', 'command', 'pid', 'other'];
	const K_TRACING = 3;
	const KIND_TEXT = ['kernel', 'kernel module', 'user', 'tracing machinery (hidden unless "tracing frames")',
		'command', 'process id', 'marker'];
	const ROW = 18;       // px per frame row
	const TEXT_MIN = 22;  // narrower frames get no label
	const PAD_TOP = 4;

	const $ = (id) => document.getElementById(id);
	const canvas = $('flame');
	const ctx = canvas.getContext('2d', { alpha: false });
	const tip = $('tip');

	// A large profile comes gzip-compressed, in base64 (the HTML parser reads
	// a fraction of the bytes: most of a large page's open time was its
	// parsing): in an element ID-cols, a JSON header and its numbers as
	// binary columns, made typed arrays here without parsing a digit
	// (doc/formats.md, "html"); in ID-gzip, JSON; a small one as plain
	// JSON in ID.
	function fromBase64(text) {
		if (typeof Uint8Array.fromBase64 === 'function')
			return Uint8Array.fromBase64(text.trim());
		const bin = atob(text.trim());
		const out = new Uint8Array(bin.length);
		for (let k = 0; k < bin.length; k++)
			out[k] = bin.charCodeAt(k);
		return out;
	}
	const COLUMN = { u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, f64: Float64Array };
	const align8 = (x) => Math.ceil(x / 8) * 8;
	const JSON_MAX = 512 * 1048576, HEAD_MAX = 256 * 1048576;
	function concat(parts, len) {
		const out = new Uint8Array(len);
		for (let k = 0, at = 0; k < parts.length && at < len; k++) {
			const p = parts[k].subarray(0, len - at);
			out.set(p, at);
			at += p.length;
		}
		return out;
	}
	// A document of columns: the header's length (4 bytes), the JSON
	// header, then each column (little-endian) from a multiple of 8 bytes
	// on, as "columns" lists them: where each lies, and where they end
	function docLayout(bytes) {
		if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1)
			throw new Error('this browser is big-endian; the profile\'s numbers are little-endian');
		const len = bytes.length >= 4 ? new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true) : -1;
		if (len < 2 || len > HEAD_MAX || 4 + len > bytes.length)
			throw new Error('its header is cut short');
		const head = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + len)));
		let at = align8(4 + len);
		const cols = [];
		for (const c of Array.isArray(head.columns) ? head.columns : []) {
			const T = Array.isArray(c) ? COLUMN[c[1]] : undefined, n = Array.isArray(c) ? c[2] : -1;
			if (!T || !Number.isInteger(n) || n < 0 || n > 1 << 30)
				throw new Error('its column ' + String(Array.isArray(c) ? c[0] : c) + ' is damaged');
			cols.push({ name: String(c[0]), T, at, n });
			at = align8(at + n * T.BYTES_PER_ELEMENT);
		}
		return { head, cols, end: at };
	}
	// The inflated bytes of an element, and with @cols the columns' layout
	// (docLayout(), read once, as soon as the header is in). A document of
	// columns may not inflate past the end of its columns, nor JSON past
	// JSON_MAX: a page whose payload inflates to gigabytes is refused, not
	// held in the tab.
	async function inflate(el, cols) {
		if (typeof DecompressionStream !== 'function')
			throw new Error('this browser cannot decompress the profile (no DecompressionStream)');
		const reader = new Blob([fromBase64(el.textContent)]).stream()
			.pipeThrough(new DecompressionStream('gzip')).getReader();
		const parts = [];
		let len = 0, max = cols ? HEAD_MAX + 4 : JSON_MAX, lay = null;
		for (;;) {
			let r;
			try {
				r = await reader.read();
			} catch (e) {
				throw new Error('its compressed data is damaged (not gzip, or cut short)');
			}
			if (r.done)
				break;
			parts.push(r.value);
			len += r.value.length;
			if (cols && !lay && len >= 4) {
				const hl = new DataView(concat(parts, 4).buffer).getUint32(0, true);
				if (hl > HEAD_MAX)
					throw new Error('its header is damaged');
				if (len >= 4 + hl) {
					lay = docLayout(concat(parts, 4 + hl));
					max = lay.end;
				}
			}
			if (len > max) {
				reader.cancel();
				throw new Error('it inflates past ' + (cols ? 'the end of its columns' : JSON_MAX + ' bytes'));
			}
		}
		return { bytes: concat(parts, len), lay };
	}
	function columns({ bytes, lay }) {
		const { head, cols } = lay || docLayout(bytes);
		head.cols = {};
		for (const c of cols) {
			if (c.at + c.n * c.T.BYTES_PER_ELEMENT > bytes.length)
				throw new Error('its column ' + c.name + ' is damaged');
			head.cols[c.name] = new c.T(bytes.buffer, bytes.byteOffset + c.at, c.n);
		}
		return head;
	}
	async function readDoc(id) {
		const cols = $(id + '-cols');
		if (cols)
			return columns(await inflate(cols, true));
		const gz = $(id + '-gzip');
		if (gz)
			return JSON.parse(new TextDecoder().decode((await inflate(gz, false)).bytes));
		const el = $(id);
		return el ? JSON.parse(el.textContent) : null;
	}

	let data;
	try {
		data = await readDoc('stacktop-data');
		if (!data || data.format !== 'stacktop-flame' || !Array.isArray(data.names) ||
		    !(Array.isArray(data.nodes) || (data.cols && data.cols.up && data.cols.name)))
			throw new Error('not a stacktop flame graph');
	} catch (e) {
		$('notes').textContent = 'cannot read the profile in this file: ' + e.message;
		return;
	}

	const meta = data.meta || {};
	const names = data.names;
	const stride = data.stride;
	const weighted = stride === 4;
	const NN = names.length;
	const nameKind = new Uint8Array(NN);
	for (let k = 0; k < NN; k++)
		nameKind[k] = names[k] ? names[k][1] : 6;

	// ---- a tree: typed arrays, parents before their callees -----------------------
	// The writer's tree (preorder, children in name order) is the base; the
	// views (filters, transforms, inverted, sandwich) are trees derived from
	// it by derive() in the same shape. Children are in kids[cstart[i]..]:
	// name order (the names are sorted), or by weight when left-heavy.
	function shape(t) {
		const n = t.N, parent = t.parent, selfH = t.selfH, selfW = t.selfW, nameOf = t.nameOf;
		const totH = new Float64Array(selfH), totW = weighted ? new Float64Array(selfW) : null;
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
	// A tree's nodes, as the writer wrote them: [depth, name, self hits(,
	// self weight)] each in JSON (@src.nodes, @st numbers a node), or
	// columns in @c (html.c: PREFIXup, PREFIXname, and the self counts of
	// the nodes that have any, PREFIXself_gap, _self_h, _self_w)
	// a names table: [label, kind(, module)] each
	function checkNames(nms) {
		for (let k = 0; k < nms.length; k++) {
			const nm = nms[k];
			if (!Array.isArray(nm) || typeof nm[0] !== 'string' || !(nm[1] >= 0 && nm[1] < KIND.length))
				throw new Error('name ' + k);
		}
	}
	function readNodes(src, c, prefix, st, nn) {
		const up = c ? c[prefix + 'up'] : null, w8 = st === 4;
		const raw = up ? null : src.nodes;
		if (!up && !Array.isArray(raw))
			throw new Error('no nodes');
		const n = up ? up.length : Math.floor(raw.length / st);
		const t = { N: n, nameOf: new Int32Array(n), depthOf: new Uint16Array(n), parent: new Int32Array(n),
			selfH: new Float64Array(n), selfW: w8 ? new Float64Array(n) : null };
		const path = new Int32Array(65536), depthOf = t.depthOf, parent = t.parent;
		for (let i = 0, o = 0, prev = -1; i < n; i++, o += st) {
			const d = up ? prev + 1 - up[i] : raw[o];
			if (i === 0 ? d !== 0 : (d < 1 || d > prev + 1 || d >= path.length))
				throw new Error('node ' + i);
			depthOf[i] = prev = d;
			parent[i] = i === 0 ? -1 : path[d - 1];
			path[d] = i;
		}
		const nameOf = t.nameOf;
		if (up) {
			const name = c[prefix + 'name'], gap = c[prefix + 'self_gap'];
			const h = c[prefix + 'self_h'], w = c[prefix + 'self_w'];
			if (!name || name.length !== n)
				throw new Error('names');
			nameOf.set(name);
			if (!gap || !h || h.length !== gap.length || (w8 && (!w || w.length !== gap.length)))
				throw new Error('self counts');
			for (let k = 0, i = 0; k < gap.length; k++) {
				if ((i += gap[k]) >= n)
					throw new Error('self count ' + k);
				t.selfH[i] = h[k];
				if (w8)
					t.selfW[i] = w[k];
			}
		} else {
			for (let i = 0, o = 1; i < n; i++, o += st) {
				t.nameOf[i] = raw[o];
				t.selfH[i] = raw[o + 1];
				if (w8)
					t.selfW[i] = raw[o + 2];
			}
		}
		for (let i = 1; i < n; i++)
			if (!(nameOf[i] >= 0 && nameOf[i] < nn))
				throw new Error('the name of node ' + i);
		nameOf[0] = -1;
		return t;
	}
	let base;
	try {
		checkNames(names);
		base = shape(readNodes(data, data.cols, '', stride, NN));
	} catch (e) {
		$('notes').textContent = 'the profile in this file is damaged (' + e.message + ')';
		return;
	}

	// ---- the differential page (--diff BEFORE AFTER -o d.html) -------------------
	// BEFORE's tree ("base" in the profile): each frame of the graph is looked
	// up by its path from the root (names, kinds and modules alike); its change
	// is the change of its share of all hits, each side's share of its own
	// total (difffolded.pl's normalised mode): red grew, blue shrank, white the
	// same. It colours the caller-rooted graph without transforms or filters.
	let beforeDamaged = '';
	const before = (function () {
		const b = data.base;
		if (!b || !Array.isArray(b.names) || !(b.stride >= 3))
			return null;
		let t;
		try {
			checkNames(b.names);
			t = readNodes(b, data.cols && data.cols.base_up ? data.cols : null, 'base_', b.stride,
				b.names.length);
		} catch (e) {
			beforeDamaged = 'the BEFORE side of this differential page is damaged (' + e.message +
				'): shown as a plain flame graph';
			return null;
		}
		const n = t.N, par = t.parent, tot = new Float64Array(t.selfH);
		for (let i = n - 1; i > 0; i--)
			tot[par[i]] += tot[i];
		// BEFORE's names as this tree's name ids (by label, kind and module;
		// -1: none here), then its nodes by (parent, that id)
		const key = (nm) => (nm ? nm[0] + '\u0001' + nm[1] + '\u0001' + (nm[2] || '') : '?');
		const ids = new Map();
		for (let k = 0; k < NN; k++)
			ids.set(key(names[k]), k);
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
		return { n, child, tot, par, label, source: String(b.source || 'BEFORE') };
	})();
	// the tree on show (base or derived): these name its arrays
	let T, N, nameOf, depthOf, parent, selfH, selfW, totH, totW, kindOf, cstart, kids, start;
	function useTree(t) {
		T = t;
		({ N, nameOf, depthOf, parent, selfH, selfW, totH, totW, kindOf, cstart, kids, start } = t);
		tot = byWeight ? totW : totH;
	}
	// run fn on another tree (the sandwich's callers), the one on show after
	function withTree(t, fn) {
		const saved = T, savedZoom = zoom;
		useTree(t);
		zoom = 0;
		try {
			return fn();
		} finally {
			useTree(saved);
			zoom = savedZoom;
		}
	}

	// (parent, name) -> node, -1 for none: open addressing in typed arrays
	// (a Map of numbers past 2^31 is several times slower on the 10^5-stack
	// page, a Map of strings slower still)
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
			get(p, nm) {
				const h = find(p, nm);
				return kp[h] >= 0 ? kv[h] : -1;
			},
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

	// a tree grown node by node (derive()): a child looked up by (parent,
	// name) in a pairTable()
	function grower() {
		const g = { nameOf: [-1], parent: [-1], depthOf: [0], selfH: [0], selfW: [0] };
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
				selfW: weighted ? Float64Array.from(g.selfW) : null };
			shape(t);
			// children in name order, as the writer's
			for (let p = 0; p < n; p++)
				if (t.cstart[p + 1] - t.cstart[p] > 1)
					t.kids.subarray(t.cstart[p], t.cstart[p + 1]).sort((a, b) => t.nameOf[a] - t.nameOf[b]);
			return t;
		};
		return g;
	}

	// ---- state ------------------------------------------------------------------
	let byWeight = weighted && !!(meta.weight && meta.weight.ranked);
	let tot;                                    // what widths are proportional to
	let showTracing = false;
	let inverted = false;                       // drawn root at the bottom (flip)
	// left-heavy (speedscope's): each frame's callees heaviest first, not
	// alphabetical; kept in the URL fragment, so a shared link opens on it
	let leftHeavy = false;
	// the view (state.js-like, all in the URL fragment, see saveHash()):
	const view = {
		mode: 'flame',      // 'flame' or 'sandwich'
		leafRooted: false,  // the inverted graph: leaves at the root, callers up
		transforms: [],     // [{t: 'focus'|'merge', name}] in order, undone from the end
		fn: -1,             // the sandwich's function (a name id)
		event: -1,          // filters: an event index, -1 for all
		proc: '',           // 'comm:NAME' or 'pid:N', '' for all
		cpu: -1,
	};
	let zoom = 0;
	useTree(base);
	let cursor = -1;                            // the keyboard's frame
	let hover = -1;
	let matchName = null;                       // Uint8Array over names, or null
	let maxDepth = 0;
	let cssW = 0;
	const drawn = { node: [], x: [], w: [], y: [] }; // what the last draw painted

	// each frame's callees in name order, or heaviest first (left-heavy),
	// laid out left to right in that order
	function layout() {
		tot = byWeight ? totW : totH;
		const want = leftHeavy ? (byWeight ? 'heavyW' : 'heavyH') : 'name';
		if (T.order !== want) {
			const cmp = leftHeavy ? (x, y) => tot[y] - tot[x] || nameOf[x] - nameOf[y]
				: (x, y) => nameOf[x] - nameOf[y];
			for (let p = 0; p < N; p++)
				if (cstart[p + 1] - cstart[p] > 1)
					kids.subarray(cstart[p], cstart[p + 1]).sort(cmp);
			T.order = want;
		}
		for (let p = 0; p < N; p++) {
			let x = start[p];
			for (let k = cstart[p]; k < cstart[p + 1]; k++) {
				start[kids[k]] = x;
				x += tot[kids[k]];
			}
		}
	}

	// ---- the views: trees derived from the base --------------------------------
	// the self counts by record, in an element of their own after this
	// script: parsed at the first filter, not at open (the bulk of the records)
	// (compressed: read in the background once the graph is drawn)
	// {n, node, attr, h, w}: typed arrays, from the JSON's flat [node, attr,
	// hits(, weight)] or from columns ("node_gap", "attr", "h", "w")
	const NO_SPLITS = { n: 0, node: [], attr: [], h: [], w: [] };
	let splits = null, splitsRead = null;
	function splitsFrom(d) {
		const c = d && d.cols;
		if (c) {
			const n = c.node_gap ? c.node_gap.length : -1;
			if (n < 0 || !c.attr || c.attr.length !== n || !c.h || c.h.length !== n ||
			    (weighted && (!c.w || c.w.length !== n)))
				throw new Error('its columns are damaged');
			const node = new Uint32Array(n);
			for (let k = 0, i = 0; k < n; k++)
				node[k] = (i += c.node_gap[k]);
			return { n, node, attr: c.attr, h: c.h, w: c.w };
		}
		const a = d && Array.isArray(d.splits) ? d.splits : [], st = weighted ? 4 : 3;
		const n = Math.floor(a.length / st);
		const sp = { n, node: new Uint32Array(n), attr: new Uint32Array(n), h: new Float64Array(n),
			w: weighted ? new Float64Array(n) : null };
		for (let k = 0, o = 0; k < n; k++, o += st) {
			sp.node[k] = a[o];
			sp.attr[k] = a[o + 1];
			sp.h[k] = a[o + 2];
			if (weighted)
				sp.w[k] = a[o + 3];
		}
		return sp;
	}
	function splitsFailed(e) {
		splits = NO_SPLITS;
		$('notes').textContent = 'cannot read the records in this file: ' + e.message;
	}
	function loadSplits() {
		if (splitsRead)
			return splitsRead;
		if (document.readyState === 'loading') {
			/* they come after this script: read once the page is parsed */
			splitsRead = new Promise((done) =>
				document.addEventListener('DOMContentLoaded', done, { once: true }))
				.then(() => {
					splitsRead = null;
					return loadSplits();
				});
			return splitsRead;
		}
		if ($('stacktop-splits-cols') || $('stacktop-splits-gzip')) {
			splitsRead = readDoc('stacktop-splits').then((d) => {
				splits = splitsFrom(d);
			}).catch(splitsFailed);
			return splitsRead;
		}
		try { /* plain JSON: at once */
			const el = $('stacktop-splits');
			splits = splitsFrom(el ? JSON.parse(el.textContent) : null);
		} catch (e) {
			splitsFailed(e);
		}
		return (splitsRead = Promise.resolve());
	}
	function getSplits() {
		return splits || NO_SPLITS;
	}
	const attrs = Array.isArray(data.attrs) ? data.attrs : [];
	const evNames = Array.isArray(data.ev) ? data.ev : [];
	const comms = new Map();
	for (const c of Array.isArray(data.comms) ? data.comms : [])
		if (Array.isArray(c))
			comms.set(c[0], String(c[1]));
	function nameId(label) {
		for (let k = 0; k < NN; k++)
			if (String(names[k][0]) === label)
				return k;
		return -1;
	}
	let baseTracing = false; // the base has tracing frames (to merge when hidden)
	for (let i = 1; i < base.N && !baseTracing; i++)
		baseTracing = base.kindOf[i] === K_TRACING;
	function filtering() {
		return view.event >= 0 || view.proc !== '' || view.cpu >= 0;
	}
	// does a record (attrs index) pass the page's filters
	function attrPasses(a) {
		const ev = attrs[3 * a], pid = attrs[3 * a + 1], cpu = attrs[3 * a + 2];
		if (view.event >= 0 && ev !== view.event)
			return false;
		if (view.cpu >= 0 && cpu !== view.cpu)
			return false;
		if (view.proc.startsWith('pid:') && String(pid) !== view.proc.slice(4))
			return false;
		if (view.proc.startsWith('comm:') && comms.get(pid) !== view.proc.slice(5))
			return false;
		return true;
	}
	// the base's self counts under the filters
	function filteredSelf() {
		if (!filtering())
			return [base.selfH, base.selfW];
		const h = new Float64Array(base.N), w = weighted ? new Float64Array(base.N) : null;
		const ok = new Map();
		const sp = getSplits();
		for (let k = 0; k < sp.n; k++) {
			const a = sp.attr[k], i = sp.node[k];
			let pass = ok.get(a);
			if (pass === undefined)
				ok.set(a, (pass = attrPasses(a)));
			if (!pass || i >= base.N)
				continue;
			h[i] += sp.h[k];
			if (weighted)
				w[i] += sp.w[k];
		}
		return [h, w];
	}
	// Transforms (Firefox Profiler's): "merge" drops a function's frames (its
	// callees join its caller); "focus" keeps the stacks through it, rooted
	// at its outermost frame; tracing frames hidden are merged too. @src is
	// a tree, parents before callees; @sh, @sw its self counts.
	function transform(src, sh, sw, merge, focus, dropTracing) {
		const g = grower();
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
	// the inverted graph: each stack from its leaf up to its root; with
	// @upTo, only the stacks through that function, from its outermost frame
	// up (the sandwich's callers)
	function invert(src, upTo) {
		const g = grower();
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
		const slot = new Int32Array(NN).fill(-1);
		const work = [[0, Int32Array.from(start), Float64Array.from(hs), Float64Array.from(ws)]];
		while (work.length) {
			const [inv, at, h, w] = work.pop();
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
	// each function's self and total (a stack through it twice counts once)
	function functions(src) {
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
	let flat = null;     // the graph the views start from: filters, transforms
	let fns = null;      // functions(flat)
	let callers = null;  // the sandwich's callers (inverted), or null
	// the tree on show from the view's state
	function derive() {
		const [sh, sw] = filteredSelf();
		const merge = new Set(), focus = [];
		for (const t of view.transforms) {
			if (t.t === 'merge')
				merge.add(t.name);
			else
				focus.push(t.name);
		}
		// the base as it is when nothing changes its stacks: the flame graph
		// hides its tracing frames itself (hidden()), the other views need them merged
		const plain = !filtering() && !view.transforms.length &&
			((view.mode === 'flame' && !view.leafRooted) || showTracing || !baseTracing);
		flat = plain ? base : transform(base, sh, sw, merge, focus, !showTracing);
		fns = null;
		callers = null;
		let t = flat;
		if (view.mode === 'sandwich' && view.fn >= 0) {
			callers = invert(flat, view.fn);
			t = transform(flat, flat.selfH, flat.selfW, new Set(), [view.fn], false);
		} else if (view.leafRooted) {
			t = invert(flat, -1);
		}
		useTree(t);
		zoom = 0;
		cursor = -1;
		hover = -1;
		layout();
	}

	function hidden(i) {
		return !showTracing && kindOf[i] === K_TRACING;
	}

	function label(i) {
		if (i === 0)
			return 'all';
		const nm = names[nameOf[i]];
		return nm ? String(nm[0]) : '?';
	}

	// ---- colours: a hue band per kind, varied by the name (stable) ---------------
	function hash(s) {
		let h = 2166136261;
		for (let k = 0; k < s.length; k++) {
			h ^= s.charCodeAt(k);
			h = Math.imul(h, 16777619);
		}
		return (h >>> 0) / 4294967296;
	}
	const BAND = [
		[20, 15, 82, 57, 8],   // kernel: orange
		[48, 12, 78, 52, 8],   // module: yellow
		[345, 18, 72, 62, 8],  // user: red
		[215, 0, 8, 72, 8],    // tracing: grey
		[205, 14, 55, 66, 8],  // command: blue
		[260, 10, 40, 72, 6],  // pid: violet
		[0, 0, 0, 82, 4],      // other: light grey
	];
	const colourCache = new Map();
	// the differential's colours are on (a BEFORE, and the plain caller-rooted graph)
	function diffOn() {
		return before !== null && view.mode === 'flame' && !view.leafRooted &&
			!view.transforms.length && !filtering();
	}
	// the tree on show mapped into BEFORE's (-1: a path BEFORE does not have), once a tree
	function diffMap() {
		if (!T.bmap) {
			const m = new Int32Array(N);
			for (let k = 1; k < N; k++) {
				const p = m[parent[k]];
				m[k] = p < 0 ? -1 : before.child.get(p, nameOf[k]);
			}
			T.bmap = m;
			let mx = 0;
			for (let k = 1; k < N; k++)
				mx = Math.max(mx, Math.abs(diffChange(k)));
			T.bmax = mx;
		}
		return T.bmap;
	}
	function diffBefore(i) {
		const j = diffMap()[i];
		return j < 0 ? 0 : before.tot[j];
	}
	// the change of a frame's share of all hits, in points (after minus before)
	function diffChange(i) {
		const j = T.bmap[i], b = j < 0 ? 0 : before.tot[j];
		return 100 * (totH[i] / (totH[0] || 1) - b / (before.tot[0] || 1));
	}
	function diffColour(i) {
		diffMap();
		const c = diffChange(i);
		if (Math.abs(c) < 1e-9)
			return 'hsl(0,0%,94%)';
		const r = T.bmax ? Math.min(1, Math.abs(c) / T.bmax) : 0;
		return 'hsl(' + (c > 0 ? 0 : 220) + ',85%,' + (92 - 42 * r).toFixed(1) + '%)';
	}
	// BEFORE's frames gone from the graph: the top of each subtree it no longer has
	function diffGone() {
		const m = diffMap(), seen = new Uint8Array(before.n), out = [];
		for (let k = 1; k < N; k++)
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

	function colour(i) {
		if (i > 0 && diffOn())
			return diffColour(i);
		if (i === 0)
			return 'hsl(0,0%,78%)';
		const key = nameOf[i];
		let c = colourCache.get(key);
		if (!c) {
			const [h, s, l] = nameHsl(i);
			c = 'hsl(' + h + ',' + s + '%,' + l + '%)';
			colourCache.set(key, c);
		}
		return c;
	}
	// a frame's colour by its name: hue, saturation, lightness (one decimal)
	function nameHsl(i) {
		const b = BAND[kindOf[i]] || BAND[6];
		const t = label(i), v = hash(t), v2 = hash(t + '.');
		return [Number(((b[0] + b[1] * v) % 360).toFixed(1)), b[2], Number((b[3] + b[4] * v2).toFixed(1))];
	}
	const MATCH = 'rgb(230,0,230)';

	function legend() {
		const present = new Set();
		for (let i = 1; i < N; i++)
			present.add(kindOf[i]);
		const el = $('legend');
		for (let k = 0; k < KIND.length; k++) {
			if (!present.has(k))
				continue;
			const b = BAND[k];
			const s = document.createElement('span');
			s.style.setProperty('--swatch', 'hsl(' + (b[0] + b[1] / 2) + ',' + b[2] + '%,' + (b[3] + b[4] / 2) + '%)');
			s.textContent = KIND[k];
			el.appendChild(s);
		}
		if (!present.size)
			return;
		// the differential's colours (the kinds' when they are off: inverted, transforms)
		for (const [c, t] of before ? [['hsl(0,85%,50%)', 'share grew'], ['hsl(220,85%,50%)', 'share shrank'],
			['hsl(0,0%,94%)', 'the same']] : []) {
			const d = document.createElement('span');
			d.style.setProperty('--swatch', c);
			d.textContent = t;
			el.appendChild(d);
		}
		const m = document.createElement('span');
		m.style.setProperty('--swatch', MATCH);
		m.textContent = 'search match';
		el.appendChild(m);
	}

	// ---- numbers ----------------------------------------------------------------
	// 1,234,567 (as toLocaleString('en-US'), without loading the locale's
	// data at open: a tenth of a small page's open time)
	function num(n) {
		return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
	}
	function pct(a, b) {
		if (!b)
			return '0%';
		const p = 100 * a / b;
		return (p >= 10 || p === 0 ? p.toFixed(1) : p.toPrecision(2)).replace(/\.0$/, '') + '%';
	}
	function amount(v) {
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
	function measureName() {
		return byWeight ? (meta.weight.name || 'weight') : 'hits';
	}

	// ---- the header's facts -----------------------------------------------------
	function facts() {
		const host = meta.host || '?';
		document.title = 'stacktop flame graph - ' + host;
		$('title').textContent = 'stacktop flame graph - ' + host;
		const f = [];
		if (meta.kernel) f.push('kernel ' + meta.kernel);
		if (meta.mode) f.push('mode ' + meta.mode);
		if (meta.events) f.push('events ' + meta.events);
		if (typeof meta.interval === 'number' && meta.interval > 0)
			f.push((meta.mode === 'replay' ? 'recorded ' : 'interval ') + meta.interval.toFixed(2) + ' s');
		if (meta.time) f.push('written ' + meta.time);
		if (meta.stacktop) f.push('stacktop ' + meta.stacktop);
		$('facts').textContent = f.join(' · ');
		const c = [];
		c.push(num(totH[0]) + ' hits in the graph (' +
			(meta.counts === 'delta' ? 'the last interval' : 'since start') + ')');
		if (weighted)
			c.push((meta.weight.name || 'weight') + ' ' + amount(totW[0]));
		if (typeof meta.matched === 'number')
			c.push(num(meta.matched) + ' of ' + num(meta.stacks) + ' unique stacks');
		if (meta.root && meta.root !== 'none')
			c.push('rooted at the ' + (meta.root === 'pid' ? 'command and pid' : 'command'));
		if (meta.filters) c.push('filters: ' + meta.filters);
		if (meta.user) c.push('user stacks: ' + meta.user);
		// the losses of the period the graph counts
		const delta = meta.counts === 'delta';
		c.push('lost ' + (meta.gone_unit || 'events') + ': ' + num(meta.gone || 0));
		$('counts').textContent = c.join(' · ');
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
			const gone = diffGone();
			if (gone.length)
				notes.push('gone since then: ' + gone.slice(0, 8).map((g) => g.path.join(' < ') + ' (' +
					num(g.hits) + ' hits, ' + g.share.toFixed(1) + '%)').join(', ') +
					(gone.length > 8 ? ' and ' + (gone.length - 8) + ' more' : ''));
		}
		$('notes').textContent = notes.join('; ');
		let tracing = false;
		for (let i = 1; i < N && !tracing; i++)
			tracing = kindOf[i] === K_TRACING;
		$('tracing').parentElement.hidden = !tracing;
		if (weighted) {
			$('measure-opt').hidden = false;
			$('measure').checked = !byWeight;
		}
	}

	// ---- drawing ----------------------------------------------------------------
	function rowY(d) {
		return inverted ? PAD_TOP + (maxDepth - d) * ROW : PAD_TOP + d * ROW;
	}

	function isMatch(i) {
		return matchName !== null && i > 0 && matchName[nameOf[i]] === 1;
	}

	// Frames are snapped to whole pixels: a frame paints the columns whose
	// left edge its rounded extent covers, so frames that tile a row tile it
	// in pixels too (a solid band even of sub-pixel frames), and one that
	// covers no column is not drawn, nor are its callees. Frames of two
	// pixels or more keep their last column as a gap to the next one.
	let charW = 7;
	let keyboard = false; // the cursor is outlined while the keyboard drives
	// one frame's label, cut to its width (none under TEXT_MIN px)
	function frameText(i, fw) {
		if (fw < TEXT_MIN)
			return '';
		const max = Math.floor((fw - 6) / charW);
		const t = label(i);
		return t.length <= max ? t : max >= 3 ? t.slice(0, max - 2) + '..' : '';
	}

	function frameWidth(x0, x1) {
		return x1 - x0 >= 2 ? x1 - x0 - 1 : x1 - x0;
	}

	// the zoomed frame's callers: full width, dimmed
	function drawCaller(i, y) {
		const fw = frameWidth(0, cssW);
		ctx.fillStyle = isMatch(i) ? MATCH : colour(i);
		ctx.globalAlpha = 0.55;
		ctx.fillRect(0, y, fw, ROW - 1);
		ctx.globalAlpha = 1;
		drawn.node.push(i);
		drawn.x.push(0);
		drawn.w.push(fw);
		drawn.y.push(y);
		const t = frameText(i, fw);
		if (t) {
			ctx.fillStyle = isMatch(i) ? '#fff' : '#000';
			ctx.fillText(t, 3, y + ROW - 6);
		}
	}

	// A CSS colour as a pixel of ImageData (RGBA bytes, little-endian). The
	// page's own colours are hsl() and rgb(): computed here; anything else
	// as the canvas reads it back (slow: a CSS parse each, cached).
	let pixels = null;
	const rgbaCache = new Map();
	function hslPx(h, s, l) {
		s /= 100;
		l /= 100;
		const k = (n) => (n + h / 30) % 12, a = s * Math.min(l, 1 - l);
		const f = (n) => Math.round(255 * (l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1))));
		return ((255 << 24) | (f(4) << 16) | (f(8) << 8) | f(0)) >>> 0;
	}
	function rgba(css) {
		let v = rgbaCache.get(css);
		if (v !== undefined)
			return v;
		let m = /^hsl\(([\d.]+),([\d.]+)%,([\d.]+)%\)$/.exec(css);
		if (m) {
			v = hslPx(Number(m[1]) % 360, Number(m[2]), Number(m[3]));
		} else if ((m = /^rgb\((\d+),(\d+),(\d+)\)$/.exec(css))) {
			v = ((255 << 24) | (Number(m[3]) << 16) | (Number(m[2]) << 8) | Number(m[1])) >>> 0;
		} else {
			ctx.fillStyle = '#000';
			ctx.fillStyle = css;
			const n = String(ctx.fillStyle);
			let r = 0, g = 0, b = 0, a = 255;
			if (/^#[0-9a-f]{6}$/i.test(n)) {
				r = parseInt(n.slice(1, 3), 16);
				g = parseInt(n.slice(3, 5), 16);
				b = parseInt(n.slice(5, 7), 16);
			} else {
				const d = n.match(/[\d.]+/g) || [];
				[r, g, b] = d.slice(0, 3).map(Number);
				a = d.length > 3 ? Math.round(Number(d[3]) * 255) : 255;
			}
			v = ((a << 24) | (b << 16) | (g << 8) | r) >>> 0;
		}
		rgbaCache.set(css, v);
		return v;
	}

	// a frame's colour by its name as a pixel, computed once a name (a large
	// graph has tens of thousands of frames to fill)
	const namePx = new Uint32Array(NN);
	function namePixel(i) {
		const nm = nameOf[i];
		if (!namePx[nm]) {
			const [h, s, l] = nameHsl(i);
			namePx[nm] = hslPx(h % 360, s, l);
		}
		return namePx[nm];
	}

	// The frames under the zoomed one that cover a pixel column (their
	// extents rounded), in preorder: what draw() paints. The graph is as
	// deep as the deepest of them.
	const pick = { node: [], x0: [], x1: [] };
	function pickFrames() {
		pick.node.length = pick.x0.length = pick.x1.length = 0;
		let m = depthOf[zoom];
		if (!tot[zoom])
			return m;
		const scale = cssW / tot[zoom], base = start[zoom];
		const st = [zoom];
		while (st.length) {
			const n = st.pop();
			const x = (start[n] - base) * scale;
			const x0 = Math.round(x), x1 = Math.round(x + tot[n] * scale);
			if (x1 <= x0 || hidden(n))
				continue;
			pick.node.push(n);
			pick.x0.push(x0);
			pick.x1.push(x1);
			if (depthOf[n] > m)
				m = depthOf[n];
			for (let k = cstart[n + 1] - 1; k >= cstart[n]; k--)
				st.push(kids[k]);
		}
		return m;
	}

	function draw() {
		cssW = canvas.parentElement.clientWidth - 24;
		if (cssW < 100)
			cssW = 100;
		maxDepth = pickFrames();
		const cssH = PAD_TOP * 2 + (maxDepth + 1) * ROW;
		const dpr = window.devicePixelRatio || 1;
		if (canvas.width !== Math.round(cssW * dpr) || canvas.height !== Math.round(cssH * dpr)) {
			canvas.width = Math.round(cssW * dpr);
			canvas.height = Math.round(cssH * dpr);
			canvas.style.height = cssH + 'px';
		}
		ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		ctx.font = '12px ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace';
		charW = ctx.measureText('mmmmmmmmmm').width / 10 || 7;
		drawn.node.length = drawn.x.length = drawn.w.length = drawn.y.length = 0;
		// the boxes straight into the pixels, a level's first row and then its
		// copies (tens of thousands of fillRect calls, or of fills of each
		// row, were most of a large graph's first draw), then the callers of
		// the zoomed frame dimmed, the labels and the keyboard's cursor
		const W = canvas.width, H = canvas.height;
		if (!pixels || pixels.width !== W || pixels.height !== H)
			pixels = ctx.createImageData(W, H);
		const px = new Uint32Array(pixels.data.buffer);
		px.fill(rgba(getComputedStyle(document.body).backgroundColor || '#fff'));
		const byName = !diffOn();
		for (let k = 0; k < pick.node.length; k++) {
			const i = pick.node[k], x0 = pick.x0[k], w = frameWidth(x0, pick.x1[k]), y = rowY(depthOf[i]);
			drawn.node.push(i);
			drawn.x.push(x0);
			drawn.w.push(w);
			drawn.y.push(y);
			// the first pixel row of its level only: the level's other rows are copies
			const r0 = Math.round(y * dpr) * W;
			px.fill(isMatch(i) ? rgba(MATCH) : byName && i > 0 ? namePixel(i) : rgba(colour(i)),
				r0 + Math.round(x0 * dpr),
				r0 + Math.min(Math.round((x0 + w) * dpr), W));
		}
		for (let d = 0; d <= maxDepth; d++) {
			const y = rowY(d), r0 = Math.round(y * dpr), r1 = Math.min(Math.round((y + ROW - 1) * dpr), H);
			for (let r = r0 + 1; r < r1; r++)
				px.copyWithin(r * W, r0 * W, r0 * W + W);
		}
		ctx.putImageData(pixels, 0, 0);
		for (let a = parent[zoom]; a >= 0; a = parent[a])
			drawCaller(a, rowY(depthOf[a]));
		for (const white of [false, true]) {
			ctx.fillStyle = white ? '#fff' : '#000';
			for (let k = 0; k < pick.node.length; k++) {
				const i = pick.node[k];
				if (drawn.w[k] < TEXT_MIN || isMatch(i) !== white)
					continue;
				const t = frameText(i, drawn.w[k]);
				if (t)
					ctx.fillText(t, drawn.x[k] + 3, drawn.y[k] + ROW - 6);
			}
		}
		if (keyboard) {
			const k = drawn.node.indexOf(cursor);
			if (k >= 0) {
				ctx.strokeStyle = '#000';
				ctx.lineWidth = 2;
				ctx.strokeRect(drawn.x[k] + 1, drawn.y[k] + 1, Math.max(drawn.w[k] - 2, 1), ROW - 3);
			}
		}
	}

	// the frame under a point of the canvas (CSS px), -1 for none
	function frameAt(px, py) {
		const d = inverted ? maxDepth - Math.floor((py - PAD_TOP) / ROW) : Math.floor((py - PAD_TOP) / ROW);
		if (d < 0 || d > maxDepth || px < 0 || px >= cssW)
			return -1;
		if (d <= depthOf[zoom]) {
			let a = zoom;
			while (depthOf[a] > d)
				a = parent[a];
			return a;
		}
		if (!tot[zoom])
			return -1;
		// the frame that painted the pixel column (see pickFrames())
		const v = start[zoom] + (Math.floor(px) + 0.5) / cssW * tot[zoom];
		let n = zoom;
		while (depthOf[n] < d) {
			// binary search the children by their start
			let lo = cstart[n], hi = cstart[n + 1] - 1, found = -1;
			while (lo <= hi) {
				const mid = (lo + hi) >> 1, c = kids[mid];
				if (v < start[c])
					hi = mid - 1;
				else if (v >= start[c] + tot[c])
					lo = mid + 1;
				else {
					found = c;
					break;
				}
			}
			if (found < 0 || hidden(found))
				return -1;
			n = found;
		}
		return n;
	}

	// ---- text about a frame: tooltip, status line, screen readers ----------------
	function inZoom(i) {
		for (let a = i; a >= 0; a = parent[a])
			if (a === zoom)
				return true;
		return false;
	}
	function describe(i) {
		const lines = [];
		const nm = i > 0 ? names[nameOf[i]] : null;
		let kind = i === 0 ? 'every stack' : KIND_TEXT[kindOf[i]] || 'frame';
		if (nm && nm[2])
			kind += ' ' + nm[2];
		lines.push(kind);
		const zoomed = zoom !== 0 && i !== zoom && inZoom(i);
		let self = 0, selfw = 0;
		{
			let c = totH[i], cw = weighted ? totW[i] : 0;
			for (let k = cstart[i]; k < cstart[i + 1]; k++)
				if (!hidden(kids[k])) {
					c -= totH[kids[k]];
					if (weighted) cw -= totW[kids[k]];
				}
			self = c;
			selfw = cw;
		}
		let h = 'hits: ' + num(totH[i]) + ', ' + pct(totH[i], totH[0]) + ' of all';
		if (zoomed)
			h += ', ' + pct(totH[i], totH[zoom]) + ' of ' + label(zoom);
		lines.push(h);
		if (weighted) {
			let w = (meta.weight.name || 'weight') + ': ' + amount(totW[i]) + ', ' + pct(totW[i], totW[0]) + ' of all';
			if (zoomed)
				w += ', ' + pct(totW[i], totW[zoom]) + ' of ' + label(zoom);
			lines.push(w);
		}
		// what the stacks ending here count (hidden callees included)
		lines.push('self: ' + num(self) + ' hits, ' + pct(self, totH[0]) + ' of all' +
			(weighted ? '; ' + (meta.weight.name || 'weight') + ' ' + amount(selfw) + ', ' +
				pct(selfw, totW[0]) : ''));
		if (diffOn()) {
			const b = diffBefore(i), c = diffChange(i);
			lines.push('before (' + before.source + '): ' + num(b) + ' hits, ' + pct(b, before.tot[0]) +
				' of all' + (b === 0 && i ? ': new' : ''));
			lines.push('change of the share: ' + (c >= 0 ? '+' : '') + c.toFixed(2) + ' points (' +
				pct(totH[i], totH[0]) + ' of this run\'s ' + num(totH[0]) + ' hits, ' +
				pct(b, before.tot[0]) + ' of ' + num(before.tot[0]) + ' before)');
		}
		return lines;
	}
	function showTip(i, cx, cy) {
		if (i < 0) {
			tip.hidden = true;
			return;
		}
		tip.textContent = '';
		const b = document.createElement('b');
		b.textContent = label(i);
		tip.appendChild(b);
		tip.appendChild(document.createTextNode('\n' + describe(i).join('\n')));
		tip.hidden = false;
		const r = tip.getBoundingClientRect();
		let x = cx + 14, y = cy + 16;
		if (x + r.width > window.innerWidth - 4)
			x = Math.max(4, cx - r.width - 14);
		if (y + r.height > window.innerHeight - 4)
			y = Math.max(4, cy - r.height - 12);
		tip.style.left = x + 'px';
		tip.style.top = y + 'px';
	}
	function status(i) {
		$('status').textContent = i < 0 ? '' : label(i) + ' - ' + describe(i).join('; ');
	}

	// ---- search -------------------------------------------------------------------
	function runSearch() {
		const q = $('search').value;
		const out = $('matched');
		if (!q) {
			matchName = null;
			out.textContent = '';
			return;
		}
		let re = null;
		const cs = $('case').checked;
		if ($('regex').checked) {
			try {
				re = new RegExp(q, cs ? '' : 'i');
			} catch (e) {
				matchName = null;
				out.textContent = 'bad regular expression';
				return;
			}
		}
		const needle = cs ? q : q.toLowerCase();
		matchName = new Uint8Array(names.length);
		for (let k = 0; k < names.length; k++) {
			// a frame matches by its name or by its module or file
			const nm = names[k];
			const test = (t) => (re ? re.test(t) : (cs ? t : t.toLowerCase()).includes(needle));
			matchName[k] = test(String(nm[0])) || (nm[2] && test(String(nm[2]))) ? 1 : 0;
		}
		// summed share: a match nested in another counts once (flamegraph.pl)
		let all = 0, frames = 0;
		const st = [0];
		while (st.length) {
			const n = st.pop();
			if (hidden(n))
				continue;
			if (isMatch(n)) {
				all += tot[n];
				frames++;
				continue;
			}
			for (let k = cstart[n]; k < cstart[n + 1]; k++)
				st.push(kids[k]);
		}
		let t = 'matched: ' + pct(all, tot[0]) + ' of all (' +
			(byWeight ? amount(all) : num(all) + ' hits') + ')';
		if (zoom !== 0) {
			let inz = 0, under = false;
			for (let a = zoom; a > 0; a = parent[a])
				if (isMatch(a))
					under = true;
			if (under)
				inz = tot[zoom];
			else {
				const s2 = [zoom];
				while (s2.length) {
					const n = s2.pop();
					if (hidden(n))
						continue;
					if (isMatch(n)) {
						inz += tot[n];
						continue;
					}
					for (let k = cstart[n]; k < cstart[n + 1]; k++)
						s2.push(kids[k]);
				}
			}
			t += ', ' + pct(inz, tot[zoom]) + ' of ' + label(zoom);
		}
		out.textContent = frames ? t : 'no match';
	}

	// ---- actions ------------------------------------------------------------------
	function setZoom(i) {
		zoom = i < 0 ? 0 : i;
		$('reset').disabled = zoom === 0;
		if (cursor >= 0 && !inZoom(cursor) && !isAncestorOfZoom(cursor))
			cursor = zoom;
		runSearch();
		draw();
		updateFocusMerge();
	}
	function isAncestorOfZoom(i) {
		for (let a = parent[zoom]; a >= 0; a = parent[a])
			if (a === i)
				return true;
		return false;
	}
	function refresh() {
		runSearch();
		if (view.mode === 'sandwich') {
			tableDraw();
			callersDraw();
		}
		draw();
		if (cursor >= 0)
			status(cursor);
	}

	canvas.addEventListener('mousemove', (ev) => {
		if (keyboard) {
			keyboard = false;
			draw();
		}
		const r = canvas.getBoundingClientRect();
		const i = frameAt(ev.clientX - r.left, ev.clientY - r.top);
		if (i !== hover) {
			hover = i;
			status(i);
		}
		showTip(i, ev.clientX, ev.clientY);
	});
	canvas.addEventListener('mouseleave', () => {
		hover = -1;
		showTip(-1);
	});
	canvas.addEventListener('click', (ev) => {
		const r = canvas.getBoundingClientRect();
		const i = frameAt(ev.clientX - r.left, ev.clientY - r.top);
		if (i < 0)
			return;
		cursor = i;
		setZoom(i);
		// the tooltip and status follow the zoom: the frame now under the pointer
		hover = frameAt(ev.clientX - r.left, ev.clientY - r.top);
		status(hover);
		showTip(hover, ev.clientX, ev.clientY);
		updateButtons();
	});
	// the reset starts over: whole graph, no cursor (the next arrow starts at the root)
	function reset() {
		cursor = -1;
		setZoom(0);
		status(-1);
		showTip(-1);
	}
	$('reset').addEventListener('click', reset);
	let timer = 0;
	$('search').addEventListener('input', () => {
		clearTimeout(timer);
		timer = setTimeout(refresh, 120);
	});
	for (const id of ['regex', 'case'])
		$(id).addEventListener('change', refresh);
	$('tracing').addEventListener('change', () => {
		showTracing = $('tracing').checked;
		if (T !== base) {
			derive();
			sandwichDraw();
		}
		if (cursor >= 0 && hidden(cursor))
			cursor = parent[cursor];
		saveHash();
		refresh();
	});
	$('invert').addEventListener('change', () => {
		inverted = $('invert').checked;
		draw();
	});
	$('heavy').addEventListener('change', () => {
		leftHeavy = $('heavy').checked;
		saveHash();
		layout();
		sandwichDraw();
		refresh();
	});

	// ---- the view's controls: inverted, sandwich, transforms, filters ---------------
	function rebuild() {
		showTip(-1);
		status(-1);
		derive();
		$('reset').disabled = true;
		saveHash();
		updateButtons();
		sandwichDraw();
		refresh();
	}
	$('leafrooted').addEventListener('change', () => {
		view.leafRooted = $('leafrooted').checked;
		rebuild();
	});
	$('view').addEventListener('change', () => {
		view.mode = $('view').value === 'sandwich' ? 'sandwich' : 'flame';
		rebuild();
	});
	// the function of the selected frame (the keyboard's or the last clicked)
	function selectedName() {
		if (cursor > 0)
			return nameOf[cursor];
		if (view.mode === 'sandwich' && view.fn >= 0)
			return view.fn;
		return zoom > 0 ? nameOf[zoom] : -1;
	}
	function addTransform(t) {
		const nm = selectedName();
		if (nm < 0)
			return;
		view.transforms.push({ t, name: nm });
		rebuild();
	}
	function undoTo(len) {
		view.transforms.length = Math.max(0, Math.min(len, view.transforms.length));
		rebuild();
	}
	$('focus').addEventListener('click', () => addTransform('focus'));
	$('merge').addEventListener('click', () => addTransform('merge'));
	$('undo').addEventListener('click', () => undoTo(view.transforms.length - 1));
	function tname(nm) {
		const n = names[nm];
		return n ? String(n[0]) : '?';
	}
	// focus and merge act on the selected frame's function: enabled when
	// there is one (the keyboard's cursor, a zoom, the sandwich's choice)
	function updateFocusMerge() {
		$('focus').disabled = $('merge').disabled = selectedName() < 0;
	}
	function updateButtons() {
		updateFocusMerge();
		$('undo').disabled = !view.transforms.length;
		const el = $('crumbs');
		el.textContent = '';
		// what the view counts, when not the whole graph
		const vt = flat && flat !== base ? flat.totH[0] : -1;
		$('viewtotal').textContent = vt >= 0 ? num(vt) + ' hits in this view (' + pct(vt, base.totH[0]) + ')' : '';
		// the breadcrumb: each step goes back to the view after it
		const all = [{ text: 'complete profile' }].concat(view.transforms.map((t) =>
			({ text: (t.t === 'merge' ? 'merge ' : 'focus ') + tname(t.name) })));
		all.forEach((c, k) => {
			if (k)
				el.appendChild(Object.assign(document.createElement('span'), { textContent: ' > ' }));
			if (k === all.length - 1) {
				el.appendChild(Object.assign(document.createElement('span'), { textContent: c.text }));
				return;
			}
			const b = document.createElement('button');
			b.type = 'button';
			b.textContent = c.text;
			b.title = 'back to this view';
			b.addEventListener('click', () => undoTo(k));
			el.appendChild(b);
		});
	}
	// the filters offered: what the records hold
	function fillFilters() {
		if (!attrs.length) /* the records' splits come after this script */
			return;
		const evs = new Set(), procs = new Map(), cpus = new Set();
		for (let a = 0; a + 3 <= attrs.length; a += 3) {
			evs.add(attrs[a]);
			cpus.add(attrs[a + 2]);
			const pid = attrs[a + 1];
			if (pid >= 0)
				procs.set(pid, comms.get(pid) || '?');
		}
		const opt = (sel, value, text) => {
			const o = document.createElement('option');
			o.value = value;
			o.textContent = text;
			$(sel).appendChild(o);
		};
		for (const e of [...evs].sort((x, y) => x - y))
			opt('f-event', e, evNames[e] !== undefined ? String(evNames[e]) : 'event ' + e);
		for (const c of [...new Set(procs.values())].sort())
			opt('f-proc', 'comm:' + c, 'command ' + c);
		for (const [pid, c] of [...procs].sort((x, y) => x[0] - y[0]))
			opt('f-proc', 'pid:' + pid, 'pid ' + pid + ' (' + c + ')');
		for (const c of [...cpus].sort((x, y) => x - y))
			opt('f-cpu', c, 'CPU ' + c);
		$('filters').hidden = false;
	}
	for (const id of ['f-event', 'f-proc', 'f-cpu'])
		$(id).addEventListener('change', () => {
			view.event = Number($('f-event').value);
			view.proc = $('f-proc').value;
			view.cpu = Number($('f-cpu').value);
			if (filtering() && splits === null && (loadSplits(), splits === null))
				splitsRead.then(rebuild); /* still being decompressed */
			else
				rebuild();
		});

	// ---- the sandwich: the function table, the callers above, the callees below ---
	let sortKey = 'total', sortDesc = true, tableRows = [];
	const TABLE_MAX = 500;
	function tableData() {
		if (!fns)
			fns = functions(flat);
		const all = flat.totH[0], allw = weighted ? flat.totW[0] : 0;
		const rows = [];
		for (let k = 0; k < NN; k++) {
			if (!fns.total[k] && !fns.totalw[k])
				continue;
			if (matchName && !matchName[k])
				continue;
			const bw = byWeight;
			const self = bw ? fns.selfw[k] : fns.self[k], total = bw ? fns.totalw[k] : fns.total[k];
			const den = bw ? allw : all;
			rows.push({ name: k, label: tname(k), where: names[k][2] ? String(names[k][2]) : '',
				self, total, selfp: den ? self / den : 0, totalp: den ? total / den : 0 });
		}
		const key = sortKey, dir = sortDesc ? -1 : 1;
		rows.sort((x, y) => {
			let c;
			if (key === 'name' || key === 'where')
				c = (key === 'name' ? x.label : x.where).localeCompare(key === 'name' ? y.label : y.where);
			else
				c = x[key] - y[key];
			return c * dir || x.label.localeCompare(y.label);
		});
		return rows;
	}
	function tableDraw() {
		const body = $('fns').tBodies[0];
		body.textContent = '';
		tableRows = tableData();
		const fmt = (v) => (byWeight ? amount(v) : num(v));
		for (const r of tableRows.slice(0, TABLE_MAX)) {
			const tr = document.createElement('tr');
			tr.tabIndex = 0;
			tr.dataset.name = r.name;
			tr.setAttribute('aria-selected', r.name === view.fn ? 'true' : 'false');
			for (const v of [r.label, r.where, fmt(r.self), fmt(r.total), pct(r.selfp, 1), pct(r.totalp, 1)])
				tr.appendChild(Object.assign(document.createElement('td'), { textContent: v }));
			body.appendChild(tr);
		}
		$('fns-more').textContent = tableRows.length > TABLE_MAX ?
			'the first ' + TABLE_MAX + ' of ' + tableRows.length + ' functions (search to find others)' :
			tableRows.length + ' functions' + (matchName ? ' matching the search' : '');
		for (const th of $('fns').tHead.querySelectorAll('button')) {
			const on = th.dataset.key === sortKey;
			th.parentElement.setAttribute('aria-sort', on ? (sortDesc ? 'descending' : 'ascending') : 'none');
			th.textContent = th.textContent.replace(/ [▲▼]$/, '') + (on ? (sortDesc ? ' ▼' : ' ▲') : '');
		}
	}
	function chooseFunction(nm) {
		view.fn = nm;
		rebuild();
		const row = $('fns').tBodies[0].querySelector('tr[data-name="' + nm + '"]');
		if (row)
			row.focus();
	}
	$('fns').tHead.addEventListener('click', (ev) => {
		const b = ev.target.closest('button');
		if (!b)
			return;
		if (sortKey === b.dataset.key)
			sortDesc = !sortDesc;
		else {
			sortKey = b.dataset.key;
			sortDesc = sortKey !== 'name' && sortKey !== 'where';
		}
		tableDraw();
	});
	$('fns').tBodies[0].addEventListener('click', (ev) => {
		const tr = ev.target.closest('tr');
		if (tr)
			chooseFunction(Number(tr.dataset.name));
	});
	$('fns').tBodies[0].addEventListener('keydown', (ev) => {
		const tr = ev.target.closest('tr');
		if (!tr)
			return;
		if (ev.key === 'Enter' || ev.key === ' ') {
			ev.preventDefault();
			chooseFunction(Number(tr.dataset.name));
		} else if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
			ev.preventDefault();
			const to = ev.key === 'ArrowDown' ? tr.nextElementSibling : tr.previousElementSibling;
			if (to)
				to.focus();
		}
	});
	// the callers: a static flame graph, root (the function) at the bottom
	const ccanvas = $('callers');
	const cctx = ccanvas.getContext('2d', { alpha: false });
	const cdrawn = [];
	function callersDraw() {
		cdrawn.length = 0;
		if (!callers || callers.N < 2) {
			ccanvas.hidden = true;
			return;
		}
		ccanvas.hidden = false;
		withTree(callers, callersPaint);
	}
	function callersPaint() {
		layout();
		let md = 0;
		for (let i = 0; i < N; i++)
			md = Math.max(md, depthOf[i]);
		const w = Math.max(canvas.parentElement.clientWidth - 24, 100), h = PAD_TOP * 2 + md * ROW;
		const dpr = window.devicePixelRatio || 1;
		ccanvas.width = Math.round(w * dpr);
		ccanvas.height = Math.round(h * dpr);
		ccanvas.style.height = h + 'px';
		cctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		cctx.fillStyle = getComputedStyle(document.body).backgroundColor || '#fff';
		cctx.fillRect(0, 0, w, h);
		cctx.font = '12px ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace';
		const scale = tot[0] ? w / tot[0] : 0;
		for (let i = 1; i < N; i++) {
			const x0 = Math.round(start[i] * scale), x1 = Math.round((start[i] + tot[i]) * scale);
			if (x1 <= x0)
				continue;
			const y = PAD_TOP + (md - depthOf[i]) * ROW, fw = x1 - x0 >= 2 ? x1 - x0 - 1 : 1;
			cctx.fillStyle = isMatch(i) ? MATCH : colour(i);
			cctx.fillRect(x0, y, fw, ROW - 1);
			cdrawn.push({ node: i, x: x0, w: fw, y, name: label(i), hits: totH[i], weight: weighted ? totW[i] : null,
				path: pathOf(i) });
			if (fw >= TEXT_MIN) {
				const max = Math.floor((fw - 6) / charW);
				let t = label(i);
				if (t.length > max)
					t = max >= 3 ? t.slice(0, max - 2) + '..' : '';
				cctx.fillStyle = isMatch(i) ? '#fff' : '#000';
				cctx.fillText(t, x0 + 3, y + ROW - 6);
			}
		}
	}
	function pathOf(i) {
		const p = [];
		for (let a = i; a > 0; a = parent[a])
			p.unshift(label(a));
		return p;
	}
	ccanvas.addEventListener('mousemove', (ev) => {
		const r = ccanvas.getBoundingClientRect();
		const x = ev.clientX - r.left, y = ev.clientY - r.top;
		const f = cdrawn.find((d) => x >= d.x && x < d.x + d.w + 1 && y >= d.y && y < d.y + ROW);
		if (!f) {
			showTip(-1);
			return;
		}
		withTree(callers, () => showTip(f.node, ev.clientX, ev.clientY));
	});
	ccanvas.addEventListener('mouseleave', () => showTip(-1));
	function sandwichDraw() {
		const on = view.mode === 'sandwich';
		$('sandwich').hidden = !on;
		$('leafrooted').disabled = on;
		if (!on)
			return;
		tableDraw();
		const f = view.fn >= 0 ? tname(view.fn) : '';
		$('callers-title').textContent = f ? 'Callers of ' + f + ' (from it up; every place it is called, merged)' :
			'Choose a function in the table (click, or Enter on a row)';
		$('callees-title').textContent = f ? f + ' and its callees' : 'The whole profile';
		callersDraw();
	}

	// ---- the URL fragment keeps the view: a copied link or file opens on it --------
	function saveHash() {
		// flags bare (#left-heavy, as the first form of the fragment), the rest key=value
		const parts = [];
		const kv = (k, v) => parts.push(k + '=' + encodeURIComponent(v));
		if (view.mode !== 'flame')
			kv('view', view.mode);
		if (leftHeavy)
			parts.push('left-heavy');
		if (view.leafRooted)
			parts.push('inverted');
		if (showTracing)
			parts.push('tracing');
		if (view.transforms.length)
			kv('tf', view.transforms.map((t) => t.t + ':' + tname(t.name)).join('~'));
		if (view.fn >= 0)
			kv('fn', tname(view.fn));
		if (view.event >= 0)
			kv('event', evNames[view.event] !== undefined ? String(evNames[view.event]) : String(view.event));
		if (view.proc)
			kv('proc', view.proc);
		if (view.cpu >= 0)
			kv('cpu', String(view.cpu));
		history.replaceState(null, '', parts.length ? '#' + parts.join('&') : location.pathname + location.search);
	}
	function loadHash() {
		const h = location.hash.slice(1);
		if (!h)
			return;
		const q = new URLSearchParams(h);
		view.mode = q.get('view') === 'sandwich' ? 'sandwich' : 'flame';
		leftHeavy = q.has('left-heavy');
		view.leafRooted = q.has('inverted');
		showTracing = q.has('tracing');
		for (const part of (q.get('tf') || '').split('~')) {
			const m = /^(focus|merge):(.+)$/.exec(part);
			const nm = m ? nameId(m[2]) : -1;
			if (nm >= 0)
				view.transforms.push({ t: m[1], name: nm });
		}
		view.fn = q.has('fn') ? nameId(q.get('fn')) : -1;
		if (q.has('event')) {
			const e = evNames.findIndex((x) => String(x) === q.get('event'));
			view.event = e >= 0 ? e : -1;
		}
		view.proc = q.get('proc') || '';
		view.cpu = q.has('cpu') ? Number(q.get('cpu')) : -1;
	}
	function syncControls() {
		$('heavy').checked = leftHeavy;
		$('tracing').checked = showTracing;
		$('leafrooted').checked = view.leafRooted;
		$('view').value = view.mode;
		$('f-event').value = String(view.event);
		$('f-proc').value = view.proc;
		$('f-cpu').value = String(view.cpu);
	}
	$('measure').addEventListener('change', () => {
		byWeight = weighted && !$('measure').checked;
		layout();
		refresh();
	});
	window.addEventListener('resize', () => draw());

	// the keyboard: on the page, / and Ctrl+F search, Esc resets; on the graph,
	// arrows move a cursor frame, Enter zooms into it, Backspace zooms out
	function visibleKids(n) {
		const out = [];
		for (let k = cstart[n]; k < cstart[n + 1]; k++)
			if (!hidden(kids[k]) && tot[kids[k]] > 0)
				out.push(kids[k]);
		// in the order they are drawn (left-heavy or alphabetical)
		return out.sort((a, b) => start[a] - start[b]);
	}
	function moveCursor(to) {
		if (to < 0)
			return;
		cursor = to;
		keyboard = true;
		draw();
		updateFocusMerge();
		status(cursor);
		// the tooltip next to the frame
		const k = drawn.node.lastIndexOf(cursor);
		const r = canvas.getBoundingClientRect();
		if (k >= 0)
			showTip(cursor, r.left + drawn.x[k] + Math.min(drawn.w[k], 40), r.top + drawn.y[k]);
		else
			showTip(-1);
	}
	canvas.addEventListener('keydown', (ev) => {
		if (ev.ctrlKey || ev.metaKey || ev.altKey)
			return;
		let c = cursor >= 0 ? cursor : zoom;
		let handled = true;
		const up = inverted ? 'ArrowDown' : 'ArrowUp', down = inverted ? 'ArrowUp' : 'ArrowDown';
		if (ev.key === up) {
			moveCursor(cursor < 0 ? zoom : parent[c] >= 0 ? parent[c] : c);
		} else if (ev.key === down) {
			const ks = visibleKids(c);
			let best = -1;
			for (const k of ks)
				if (best < 0 || tot[k] > tot[best])
					best = k; // the heaviest callee
			moveCursor(cursor < 0 ? zoom : best >= 0 ? best : c);
		} else if (ev.key === 'ArrowLeft' || ev.key === 'ArrowRight') {
			if (c === 0 || cursor < 0 || !inZoom(c) || c === zoom) {
				moveCursor(c);
			} else {
				const sib = visibleKids(parent[c]);
				const at = sib.indexOf(c) + (ev.key === 'ArrowLeft' ? -1 : 1);
				moveCursor(at >= 0 && at < sib.length ? sib[at] : c);
			}
		} else if (ev.key === 'Enter' || ev.key === ' ') {
			if (cursor >= 0)
				setZoom(cursor);
		} else if (ev.key === 'Backspace') {
			setZoom(parent[zoom] >= 0 ? parent[zoom] : 0);
		} else {
			handled = false;
		}
		if (handled)
			ev.preventDefault();
	});
	document.addEventListener('keydown', (ev) => {
		const inSearch = document.activeElement === $('search');
		if ((ev.key === 'f' && (ev.ctrlKey || ev.metaKey)) || (ev.key === '/' && !inSearch)) {
			ev.preventDefault();
			$('search').focus();
			$('search').select();
			return;
		}
		if (ev.key === 'Escape') {
			if (inSearch) {
				$('search').value = '';
				$('search').blur();
				canvas.focus();
				refresh();
			} else {
				reset();
			}
			return;
		}
		if (inSearch || ev.ctrlKey || ev.metaKey || ev.altKey ||
		    (document.activeElement && /^(INPUT|SELECT)$/.test(document.activeElement.tagName)))
			return;
		if (ev.key === 't') {
			$('tracing').click();
		} else if (ev.key === 'i') {
			$('invert').click();
		} else if (ev.key === 'l') {
			$('heavy').click();
		} else if (ev.key === 'w' && weighted) {
			$('measure').click();
		} else if (ev.key === 'r' && view.mode === 'flame') {
			$('leafrooted').click();
		} else if (ev.key === 's' || ev.key === 'g') {
			$('view').value = ev.key === 's' ? 'sandwich' : 'flame';
			$('view').dispatchEvent(new Event('change'));
			if (ev.key === 's') {
				const row = $('fns').tBodies[0].querySelector('tr[aria-selected="true"]') ||
					$('fns').tBodies[0].querySelector('tr');
				if (row)
					row.focus();
			} else {
				canvas.focus();
			}
		} else if (ev.key === 'f' || ev.key === 'm') {
			addTransform(ev.key === 'f' ? 'focus' : 'merge');
		} else if (ev.key === 'u') {
			if (view.transforms.length)
				undoTo(view.transforms.length - 1);
		}
	});

	// read-only view for tests and scripts: what the last draw painted
	window.stacktopFlame = {
		frames() {
			const out = [];
			for (let k = 0; k < drawn.node.length; k++) {
				const i = drawn.node[k];
				const path = [];
				for (let a = i; a > 0; a = parent[a])
					path.unshift(label(a));
				const nm = i > 0 ? names[nameOf[i]] : null;
				out.push({ node: i, name: label(i), where: nm && nm[2] ? String(nm[2]) : '', path, kind: i ? KIND[kindOf[i]] : 'all', x: drawn.x[k],
					w: drawn.w[k], y: drawn.y[k], h: ROW - 1, hits: totH[i],
					weight: weighted ? totW[i] : null, match: isMatch(i) });
			}
			return out;
		},
		state() {
			return { zoom, zoomName: label(zoom), cursor, width: cssW, nodes: N, names: names.length,
				measure: measureName(), total: tot[0], tracing: showTracing, inverted,
				leftHeavy, view: view.mode, leafRooted: view.leafRooted,
				transforms: view.transforms.map((t) => t.t + ':' + tname(t.name)),
				fn: view.fn >= 0 ? tname(view.fn) : null, event: view.event, proc: view.proc, cpu: view.cpu,
				hash: location.hash };
		},
		// the function table as shown (sorted, searched)
		table() {
			return tableRows.map((r) => ({ name: r.label, where: r.where, self: r.self, total: r.total,
				selfp: r.selfp, totalp: r.totalp }));
		},
		// the sandwich's callers as drawn (root, the function, first)
		callers() {
			return cdrawn.map((d) => ({ name: d.name, path: d.path, hits: d.hits, weight: d.weight,
				x: d.x, w: d.w, y: d.y }));
		},
		// the text of the tooltip now shown ('' when hidden)
		// the differential: each painted frame's BEFORE hits and change, BEFORE's frames gone
		diff() {
			if (!before)
				return null;
			const on = diffOn();
			return { on, source: before.source, total: before.tot[0],
				frames: drawn.node.map((i) => ({ name: label(i), hits: totH[i],
					before: on ? diffBefore(i) : null, change: on ? diffChange(i) : null,
					colour: colour(i) })),
				gone: diffGone() };
		},
		tip() {
			return tip.hidden ? '' : tip.textContent;
		},
	};

	facts();
	legend();
	fillFilters();
	loadHash();
	syncControls();
	if (filtering())
		await loadSplits();
	if (filtering() || view.transforms.length || view.mode !== 'flame' || view.leafRooted)
		derive();
	else
		layout();
	updateButtons();
	sandwichDraw();
	if (matchName === null && $('search').value)
		runSearch();
	draw();
	requestAnimationFrame(() => {
		// open time as the browser measures it: navigation start to the first draw painted
		window.stacktopReady = performance.now();
		performance.mark('stacktop-ready');
		document.body.dataset.ready = '1';
		if (attrs.length) /* the records, read while nobody needs them yet */
			setTimeout(loadSplits, 0);
	});
})();
