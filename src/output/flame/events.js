// SPDX-License-Identifier: GPL-2.0-or-later
// events.js - the flame page's controls listened to: the pointer on the
// graph and on the sandwich's callers, the options, the buttons, the
// filters, the function table, the keys. Each event calls an action of
// page.js (which changes the page's state); nothing here changes it.
// @ts-check
'use strict';

/**
 * @typedef {object} Actions  page.js's, what the controls do
 * @property {(ev: MouseEvent) => void} hover
 * @property {() => void} leave
 * @property {() => void} hideTip
 * @property {(ev: MouseEvent) => void} click
 * @property {() => void} reset
 * @property {() => void} refresh
 * @property {() => void} searchTyped
 * @property {(on: boolean) => void} tracing
 * @property {(on: boolean) => void} invert
 * @property {(on: boolean) => void} heavy
 * @property {(on: boolean) => void} measure  "widths by hits"
 * @property {(on: boolean) => void} leafRooted
 * @property {(mode: string) => void} mode
 * @property {(t: string) => void} transform  'focus' or 'merge'
 * @property {() => void} undo
 * @property {(event: number, proc: string, cpu: number) => void} filters
 * @property {(key: string) => void} sort
 * @property {(nm: number) => void} choose
 * @property {(x: number, y: number, cx: number, cy: number) => void} callersHover
 * @property {() => void} draw
 * @property {(ev: KeyboardEvent) => boolean} key  a key on the graph: handled
 */

/**
 * @param {(id: string) => any} $
 * @param {HTMLCanvasElement} canvas  the graph
 * @param {HTMLCanvasElement} ccanvas  the sandwich's callers
 * @param {Actions} act
 * @param {() => {mode: string, weighted: boolean}} read  what the keys depend on
 */
function listen($, canvas, ccanvas, act, read) {
	canvas.addEventListener('mousemove', act.hover);
	canvas.addEventListener('mouseleave', act.leave);
	canvas.addEventListener('click', act.click);
	$('reset').addEventListener('click', act.reset);
	$('search').addEventListener('input', act.searchTyped);
	for (const id of ['regex', 'case'])
		$(id).addEventListener('change', act.refresh);
	$('tracing').addEventListener('change', () => act.tracing($('tracing').checked));
	$('invert').addEventListener('change', () => act.invert($('invert').checked));
	$('heavy').addEventListener('change', () => act.heavy($('heavy').checked));
	$('measure').addEventListener('change', () => act.measure($('measure').checked));
	$('leafrooted').addEventListener('change', () => act.leafRooted($('leafrooted').checked));
	$('view').addEventListener('change', () => act.mode($('view').value));
	$('focus').addEventListener('click', () => act.transform('focus'));
	$('merge').addEventListener('click', () => act.transform('merge'));
	$('undo').addEventListener('click', act.undo);
	for (const id of ['f-event', 'f-proc', 'f-cpu'])
		$(id).addEventListener('change', () =>
			act.filters(Number($('f-event').value), $('f-proc').value, Number($('f-cpu').value)));
	const fns = $('fns');
	fns.tHead.addEventListener('click', (ev) => {
		const b = ev.target.closest('button');
		if (b)
			act.sort(b.dataset.key);
	});
	fns.tBodies[0].addEventListener('click', (ev) => {
		const tr = ev.target.closest('tr');
		if (tr)
			act.choose(Number(tr.dataset.name));
	});
	fns.tBodies[0].addEventListener('keydown', (ev) => {
		const tr = ev.target.closest('tr');
		if (!tr)
			return;
		if (ev.key === 'Enter' || ev.key === ' ') {
			ev.preventDefault();
			act.choose(Number(tr.dataset.name));
		} else if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
			ev.preventDefault();
			const to = ev.key === 'ArrowDown' ? tr.nextElementSibling : tr.previousElementSibling;
			if (to)
				to.focus();
		}
	});
	ccanvas.addEventListener('mousemove', (ev) => {
		const r = ccanvas.getBoundingClientRect();
		act.callersHover(ev.clientX - r.left, ev.clientY - r.top, ev.clientX, ev.clientY);
	});
	ccanvas.addEventListener('mouseleave', act.hideTip);
	window.addEventListener('resize', () => act.draw());

	// on the graph: arrows, Enter, Backspace (page.js's act.key())
	canvas.addEventListener('keydown', (ev) => {
		if (ev.ctrlKey || ev.metaKey || ev.altKey)
			return;
		if (act.key(ev))
			ev.preventDefault();
	});
	// on the page: / and Ctrl+F search, Esc resets, a letter a control
	document.addEventListener('keydown', (ev) => {
		const search = $('search'), inSearch = document.activeElement === search;
		if ((ev.key === 'f' && (ev.ctrlKey || ev.metaKey)) || (ev.key === '/' && !inSearch)) {
			ev.preventDefault();
			search.focus();
			search.select();
			return;
		}
		if (ev.key === 'Escape') {
			if (inSearch) {
				search.value = '';
				search.blur();
				canvas.focus();
				act.refresh();
			} else {
				act.reset();
			}
			return;
		}
		if (inSearch || ev.ctrlKey || ev.metaKey || ev.altKey ||
		    (document.activeElement && /^(INPUT|SELECT)$/.test(document.activeElement.tagName)))
			return;
		const { mode, weighted } = read();
		if (ev.key === 't') {
			$('tracing').click();
		} else if (ev.key === 'i') {
			$('invert').click();
		} else if (ev.key === 'l') {
			$('heavy').click();
		} else if (ev.key === 'w' && weighted) {
			$('measure').click();
		} else if (ev.key === 'r' && mode === 'flame') {
			$('leafrooted').click();
		} else if (ev.key === 's' || ev.key === 'g') {
			$('view').value = ev.key === 's' ? 'sandwich' : 'flame';
			$('view').dispatchEvent(new Event('change'));
			if (ev.key === 's') {
				const body = $('fns').tBodies[0];
				const row = body.querySelector('tr[aria-selected="true"]') || body.querySelector('tr');
				if (row)
					row.focus();
			} else {
				canvas.focus();
			}
		} else if (ev.key === 'f' || ev.key === 'm') {
			act.transform(ev.key === 'f' ? 'focus' : 'merge');
		} else if (ev.key === 'u') {
			act.undo();
		}
	});
}

module.exports = { listen };
