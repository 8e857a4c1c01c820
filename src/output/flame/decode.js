// SPDX-License-Identifier: GPL-2.0-or-later
// decode.js - the flame page's profile read from the page (page.js), as
// src/output/html.c writes it (doc/formats.md, "html"): the documents in
// the page's elements, the names table, a tree's nodes, the records.
//
// A large profile comes gzip-compressed, in base64 (the HTML parser reads
// a fraction of the bytes: most of a large page's open time was its
// parsing): in an element ID-cols, a JSON header and its numbers as binary
// columns, made typed arrays here without parsing a digit; in ID-gzip,
// JSON; a small one as plain JSON in ID. Nothing here touches the page:
// the caller says how an element is found.
// @ts-check
'use strict';

const { KIND } = require('./tree.js');

/** @param {string} text  base64 */
function fromBase64(text) {
	// @ts-ignore: newer browsers have it
	if (typeof Uint8Array.fromBase64 === 'function')
		// @ts-ignore
		return Uint8Array.fromBase64(text.trim());
	const bin = atob(text.trim());
	const out = new Uint8Array(bin.length);
	for (let k = 0; k < bin.length; k++)
		out[k] = bin.charCodeAt(k);
	return out;
}
const COLUMN = Object.freeze({ u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, f64: Float64Array });
const align8 = (x) => Math.ceil(x / 8) * 8;
const JSON_MAX = 512 * 1048576, HEAD_MAX = 256 * 1048576;
/**
 * @param {Uint8Array[]} parts
 * @param {number} len
 */
function concat(parts, len) {
	const out = new Uint8Array(len);
	for (let k = 0, at = 0; k < parts.length && at < len; k++) {
		const p = parts[k].subarray(0, len - at);
		out.set(p, at);
		at += p.length;
	}
	return out;
}
/**
 * A document of columns: the header's length (4 bytes), the JSON header,
 * then each column (little-endian) from a multiple of 8 bytes on, as
 * "columns" lists them: where each lies, and where they end
 * @param {Uint8Array} bytes
 */
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
/**
 * The inflated bytes of an element, and with `cols` the columns' layout
 * (docLayout(), read once, as soon as the header is in). A document of
 * columns may not inflate past the end of its columns, nor JSON past
 * JSON_MAX: a page whose payload inflates to gigabytes is refused, not
 * held in the tab.
 * @param {{textContent: string}} el
 * @param {boolean} cols
 */
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
/** @param {{bytes: Uint8Array, lay: any}} doc */
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
/**
 * The document of element `id`, in whichever of its three forms the page has
 * @param {string} id
 * @param {(id: string) => ({textContent: string}|null)} lookup  an element by its id
 */
async function readDoc(id, lookup) {
	const cols = lookup(id + '-cols');
	if (cols)
		return columns(await inflate(cols, true));
	const gz = lookup(id + '-gzip');
	if (gz)
		return JSON.parse(new TextDecoder().decode((await inflate(gz, false)).bytes));
	const el = lookup(id);
	return el ? JSON.parse(el.textContent) : null;
}

/**
 * A profile document as the page needs it, or an Error why not
 * @param {any} data
 */
function checkProfile(data) {
	if (!data || data.format !== 'stacktop-flame' || !Array.isArray(data.names) ||
	    !(Array.isArray(data.nodes) || (data.cols && data.cols.up && data.cols.name)))
		throw new Error('not a stacktop flame graph');
}

/**
 * What every module reads of a profile document (tree.js's Profile)
 * @param {any} data  checked by checkProfile()
 * @returns {import('./tree.js').Profile}
 */
function profileOf(data) {
	const names = data.names, NN = names.length;
	const nameKind = new Uint8Array(NN);
	for (let k = 0; k < NN; k++)
		nameKind[k] = names[k] ? names[k][1] : 6;
	const comms = new Map();
	for (const c of Array.isArray(data.comms) ? data.comms : [])
		if (Array.isArray(c))
			comms.set(c[0], String(c[1]));
	return { names, NN, nameKind, weighted: data.stride === 4, meta: data.meta || {},
		attrs: Array.isArray(data.attrs) ? data.attrs : [],
		evNames: Array.isArray(data.ev) ? data.ev : [], comms };
}

/**
 * A names table: [label, kind(, module)] each
 * @param {any[]} nms
 */
function checkNames(nms) {
	for (let k = 0; k < nms.length; k++) {
		const nm = nms[k];
		if (!Array.isArray(nm) || typeof nm[0] !== 'string' || !(nm[1] >= 0 && nm[1] < KIND.length))
			throw new Error('name ' + k);
	}
}

/**
 * A tree's nodes, as the writer wrote them: [depth, name, self hits(, self
 * weight)] each in JSON (`src`.nodes, `st` numbers a node), or columns in `c`
 * (html.c: PREFIXup, PREFIXname, and the self counts of the nodes that
 * have any, PREFIXself_gap, _self_h, _self_w)
 * @param {any} src
 * @param {any} c
 * @param {string} prefix
 * @param {number} st
 * @param {number} nn  the names the nodes may name
 * @returns {import('./tree.js').Tree}
 */
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

/**
 * @typedef {object} Splits  the self counts by record: typed arrays
 * @property {number} n
 * @property {ArrayLike<number>} node
 * @property {ArrayLike<number>} attr  an index of the profile's attrs triples
 * @property {ArrayLike<number>} h
 * @property {ArrayLike<number>|null} w
 */
/** @type {Splits} */
const NO_SPLITS = Object.freeze({ n: 0, node: Object.freeze([]), attr: Object.freeze([]),
	h: Object.freeze([]), w: Object.freeze([]) });
/**
 * The records of the element after the page's script (the bulk of them:
 * read at the first filter, not at open), from the JSON's flat [node,
 * attr, hits(, weight)] or from columns ("node_gap", "attr", "h", "w")
 * @param {any} d  the document, null for none
 * @param {boolean} weighted
 * @returns {Splits}
 */
function splitsFrom(d, weighted) {
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

module.exports = { fromBase64, docLayout, inflate, columns, readDoc, checkProfile, profileOf,
	checkNames, readNodes, NO_SPLITS, splitsFrom };
