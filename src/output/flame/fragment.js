// SPDX-License-Identifier: GPL-2.0-or-later
// fragment.js - the view in the page's URL fragment, so that a copied link
// or file opens on it: flags bare (#left-heavy, as the first form of the
// fragment), the rest key=value; functions and events by name, so that a
// fragment means the same on another page of the same program.
// @ts-check
'use strict';

const { nameLabel, nameId } = require('./tree.js');

/**
 * The fragment of a view (without '#'), '' for the plain one
 * @param {import('./tree.js').Profile} P
 * @param {import('./model.js').View} view
 * @param {{leftHeavy: boolean, showTracing: boolean}} f
 */
function toFragment(P, view, f) {
	const parts = [];
	const kv = (k, v) => parts.push(k + '=' + encodeURIComponent(v));
	if (view.mode !== 'flame')
		kv('view', view.mode);
	if (f.leftHeavy)
		parts.push('left-heavy');
	if (view.leafRooted)
		parts.push('inverted');
	if (f.showTracing)
		parts.push('tracing');
	if (view.transforms.length)
		kv('tf', view.transforms.map((t) => t.t + ':' + nameLabel(P, t.name)).join('~'));
	if (view.fn >= 0)
		kv('fn', nameLabel(P, view.fn));
	if (view.event >= 0)
		kv('event', P.evNames[view.event] !== undefined ? String(P.evNames[view.event]) : String(view.event));
	if (view.proc)
		kv('proc', view.proc);
	if (view.cpu >= 0)
		kv('cpu', String(view.cpu));
	return parts.join('&');
}

/**
 * The view a fragment says (without '#'); null for an empty one. What it
 * names that the profile has not (a function, an event) is left out.
 * @param {import('./tree.js').Profile} P
 * @param {string} h
 * @returns {{view: import('./model.js').View, leftHeavy: boolean, showTracing: boolean}|null}
 */
function fromFragment(P, h) {
	if (!h)
		return null;
	const q = new URLSearchParams(h);
	const transforms = [];
	for (const part of (q.get('tf') || '').split('~')) {
		const m = /^(focus|merge):(.+)$/.exec(part);
		const nm = m ? nameId(P, m[2]) : -1;
		if (nm >= 0)
			transforms.push({ t: m[1], name: nm });
	}
	let event = -1;
	if (q.has('event')) {
		const e = P.evNames.findIndex((x) => String(x) === q.get('event'));
		event = e >= 0 ? e : -1;
	}
	return {
		view: {
			mode: q.get('view') === 'sandwich' ? 'sandwich' : 'flame',
			leafRooted: q.has('inverted'),
			transforms,
			fn: q.has('fn') ? nameId(P, q.get('fn')) : -1,
			event,
			proc: q.get('proc') || '',
			cpu: q.has('cpu') ? Number(q.get('cpu')) : -1,
		},
		leftHeavy: q.has('left-heavy'),
		showTracing: q.has('tracing'),
	};
}

module.exports = { toFragment, fromFragment };
