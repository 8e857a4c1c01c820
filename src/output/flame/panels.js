// SPDX-License-Identifier: GPL-2.0-or-later
// panels.js - the flame page's panels written from what page.js holds: the
// header's facts, the legend, the filters offered, the transforms'
// breadcrumb, the sandwich's function table and titles. They read the view
// and write the page; what a click changes goes back through page.js's
// callbacks. Every string of the profile reaches the page as textContent.
// @ts-check
'use strict';

const { KIND, nameLabel } = require('./tree.js');
const { MATCH, kindSwatch } = require('./colour.js');
const { num, pct, amount } = require('./text.js');

/** @typedef {(id: string) => any} Lookup  an element of the page by its id */

/**
 * @param {string} tag
 * @param {string} text
 */
function el(tag, text) {
	return Object.assign(document.createElement(tag), { textContent: text });
}

/**
 * The header (text.js header()) and the options it decides
 * @param {Lookup} $
 * @param {ReturnType<typeof import('./text.js').header>} h
 * @param {import('./tree.js').Profile} P
 * @param {boolean} byWeight
 */
function putHeader($, h, P, byWeight) {
	document.title = h.title;
	$('title').textContent = h.title;
	$('facts').textContent = h.facts;
	$('counts').textContent = h.counts;
	$('notes').textContent = h.notes;
	$('tracing').parentElement.hidden = !h.tracing;
	if (P.weighted) {
		$('measure-opt').hidden = false;
		$('measure').checked = !byWeight;
	}
}

/**
 * The legend: the kinds the graph has, the differential's colours, the
 * search's
 * @param {Lookup} $
 * @param {import('./tree.js').Tree} t
 * @param {boolean} differential
 */
function putLegend($, t, differential) {
	const present = new Set();
	for (let i = 1; i < t.N; i++)
		present.add(t.kindOf[i]);
	const box = $('legend');
	const swatch = (colour, text) => {
		const s = el('span', text);
		s.style.setProperty('--swatch', colour);
		box.appendChild(s);
	};
	for (let k = 0; k < KIND.length; k++)
		if (present.has(k))
			swatch(kindSwatch(k), KIND[k]);
	if (!present.size)
		return;
	// the differential's colours (the kinds' when they are off: inverted, transforms)
	if (differential)
		for (const [c, text] of [['hsl(0,85%,50%)', 'share grew'], ['hsl(220,85%,50%)', 'share shrank'],
			['hsl(0,0%,94%)', 'the same']])
			swatch(c, text);
	swatch(MATCH, 'search match');
}

/**
 * The filters offered: what the records hold (the splits come after the
 * page's script: the attributes alone say which)
 * @param {Lookup} $
 * @param {import('./tree.js').Profile} P
 */
function putFilters($, P) {
	const attrs = P.attrs;
	if (!attrs.length)
		return;
	const evs = new Set(), procs = new Map(), cpus = new Set();
	for (let a = 0; a + 3 <= attrs.length; a += 3) {
		evs.add(attrs[a]);
		cpus.add(attrs[a + 2]);
		const pid = attrs[a + 1];
		if (pid >= 0)
			procs.set(pid, P.comms.get(pid) || '?');
	}
	const opt = (sel, value, text) => {
		const o = /** @type {HTMLOptionElement} */ (el('option', text));
		o.value = value;
		$(sel).appendChild(o);
	};
	for (const e of [...evs].sort((x, y) => x - y))
		opt('f-event', e, P.evNames[e] !== undefined ? String(P.evNames[e]) : 'event ' + e);
	for (const c of [...new Set(procs.values())].sort())
		opt('f-proc', 'comm:' + c, 'command ' + c);
	for (const [pid, c] of [...procs].sort((x, y) => x[0] - y[0]))
		opt('f-proc', 'pid:' + pid, 'pid ' + pid + ' (' + c + ')');
	for (const c of [...cpus].sort((x, y) => x - y))
		opt('f-cpu', c, 'CPU ' + c);
	$('filters').hidden = false;
}

/**
 * The transforms' breadcrumb (each step goes back to the view after it)
 * and what the view counts, when not the whole graph
 * @param {Lookup} $
 * @param {import('./tree.js').Profile} P
 * @param {import('./model.js').View} view
 * @param {number} viewHits  the hits of the view's graph, -1 for the whole
 * @param {number} allHits  the whole graph's
 * @param {(len: number) => void} undoTo  page.js: back to the first `len` transforms
 */
function putCrumbs($, P, view, viewHits, allHits, undoTo) {
	$('undo').disabled = !view.transforms.length;
	const box = $('crumbs');
	box.textContent = '';
	$('viewtotal').textContent = viewHits >= 0 ?
		num(viewHits) + ' hits in this view (' + pct(viewHits, allHits) + ')' : '';
	const all = [{ text: 'complete profile' }].concat(view.transforms.map((t) =>
		({ text: (t.t === 'merge' ? 'merge ' : 'focus ') + nameLabel(P, t.name) })));
	all.forEach((c, k) => {
		if (k)
			box.appendChild(el('span', ' > '));
		if (k === all.length - 1) {
			box.appendChild(el('span', c.text));
			return;
		}
		const b = /** @type {HTMLButtonElement} */ (el('button', c.text));
		b.type = 'button';
		b.title = 'back to this view';
		b.addEventListener('click', () => undoTo(k));
		box.appendChild(b);
	});
}

/**
 * @typedef {object} FnRow  a row of the function table
 * @property {number} name  its name id
 * @property {string} label
 * @property {string} where  its module or file
 * @property {number} self
 * @property {number} total
 * @property {number} selfp  shares of the view's total
 * @property {number} totalp
 */

/**
 * The function table's rows: the functions of the view's graph with hits,
 * those the search matches, sorted by `key`
 * @param {import('./tree.js').Profile} P
 * @param {import('./tree.js').Tree} flat  the graph the views start from
 * @param {ReturnType<typeof import('./model.js').functions>} fns  its functions
 * @param {Uint8Array|null} matchName
 * @param {boolean} byWeight
 * @param {string} key  name, where, self, total, selfp, totalp
 * @param {boolean} desc
 * @returns {FnRow[]}
 */
function tableRows(P, flat, fns, matchName, byWeight, key, desc) {
	const all = flat.totH[0], allw = P.weighted ? flat.totW[0] : 0;
	const rows = [];
	for (let k = 0; k < P.NN; k++) {
		if (!fns.total[k] && !fns.totalw[k])
			continue;
		if (matchName && !matchName[k])
			continue;
		const self = byWeight ? fns.selfw[k] : fns.self[k], total = byWeight ? fns.totalw[k] : fns.total[k];
		const den = byWeight ? allw : all;
		rows.push({ name: k, label: nameLabel(P, k), where: P.names[k][2] ? String(P.names[k][2]) : '',
			self, total, selfp: den ? self / den : 0, totalp: den ? total / den : 0 });
	}
	const dir = desc ? -1 : 1;
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

const TABLE_MAX = 500;

/**
 * The function table written: its first TABLE_MAX rows, the chosen one
 * selected, the sort shown in the head
 * @param {Lookup} $
 * @param {import('./tree.js').Profile} P
 * @param {FnRow[]} rows
 * @param {{fn: number, byWeight: boolean, key: string, desc: boolean, searched: boolean}} o
 */
function putTable($, P, rows, o) {
	const body = $('fns').tBodies[0];
	body.textContent = '';
	const fmt = (v) => (o.byWeight ? amount(P.meta, v) : num(v));
	for (const r of rows.slice(0, TABLE_MAX)) {
		const tr = document.createElement('tr');
		tr.tabIndex = 0;
		tr.dataset.name = String(r.name);
		tr.setAttribute('aria-selected', r.name === o.fn ? 'true' : 'false');
		for (const v of [r.label, r.where, fmt(r.self), fmt(r.total), pct(r.selfp, 1), pct(r.totalp, 1)])
			tr.appendChild(el('td', v));
		body.appendChild(tr);
	}
	$('fns-more').textContent = rows.length > TABLE_MAX ?
		'the first ' + TABLE_MAX + ' of ' + rows.length + ' functions (search to find others)' :
		rows.length + ' functions' + (o.searched ? ' matching the search' : '');
	for (const th of $('fns').tHead.querySelectorAll('button')) {
		const on = th.dataset.key === o.key;
		th.parentElement.setAttribute('aria-sort', on ? (o.desc ? 'descending' : 'ascending') : 'none');
		th.textContent = th.textContent.replace(/ [▲▼]$/, '') + (on ? (o.desc ? ' ▼' : ' ▲') : '');
	}
}

/**
 * The sandwich's titles
 * @param {Lookup} $
 * @param {string} f  the chosen function's label, '' for none
 */
function putSandwichTitles($, f) {
	$('callers-title').textContent = f ? 'Callers of ' + f + ' (from it up; every place it is called, merged)' :
		'Choose a function in the table (click, or Enter on a row)';
	$('callees-title').textContent = f ? f + ' and its callees' : 'The whole profile';
}

/**
 * The controls as the state says (after the URL fragment is read)
 * @param {Lookup} $
 * @param {import('./model.js').View} view
 * @param {{leftHeavy: boolean, showTracing: boolean}} f
 */
function putControls($, view, f) {
	$('heavy').checked = f.leftHeavy;
	$('tracing').checked = f.showTracing;
	$('leafrooted').checked = view.leafRooted;
	$('view').value = view.mode;
	$('f-event').value = String(view.event);
	$('f-proc').value = view.proc;
	$('f-cpu').value = String(view.cpu);
}

module.exports = { putControls, putHeader, putLegend, putFilters, putCrumbs, tableRows, putTable,
	putSandwichTitles, TABLE_MAX };
