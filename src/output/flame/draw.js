// SPDX-License-Identifier: GPL-2.0-or-later
// draw.js - the flame graph painted on the page's canvases: the graph of a
// zoom (the frames zoom.js picks, their labels, the zoomed frame's callers
// dimmed, the keyboard's cursor) and the sandwich's callers. It reads the
// tree and what the page shows, and returns what it painted (page.js keeps
// it for the pointer, the keyboard and the test hook).
// @ts-check
'use strict';

const { label, pathOf } = require('./tree.js');
const { ROW, TEXT_MIN, PAD_TOP, rowY, frameWidth, frameText, pickFrames } = require('./zoom.js');
const { MATCH } = require('./colour.js');

const FONT = '12px ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace';

/**
 * @typedef {object} Shown  what the page shows of the tree on show
 * @property {import('./tree.js').Tree} t  laid out (tree.js layout())
 * @property {ArrayLike<number>} tot  what widths are proportional to
 * @property {number} zoom
 * @property {boolean} showTracing
 * @property {boolean} inverted  drawn root at the bottom
 * @property {(i: number) => boolean} isMatch  a search match
 * @property {import('./diff.js').Before|null} before  while the differential's colours are on
 * @property {number} cursor  the keyboard's frame, outlined when `keyboard`
 * @property {boolean} keyboard
 */

/**
 * @typedef {object} Drawn  what a draw painted
 * @property {number[]} node
 * @property {number[]} x
 * @property {number[]} w
 * @property {number[]} y
 * @property {number} maxDepth
 * @property {number} cssW  the graph's width (CSS px)
 * @property {number} charW  a label character's width
 */

/**
 * The painter of the page's graph: its pixels kept from one draw to the
 * next (the boxes go straight into them: tens of thousands of fillRect
 * calls, or of fills of each row, were most of a large graph's first draw)
 * @param {HTMLCanvasElement} canvas
 * @param {CanvasRenderingContext2D} ctx
 * @param {import('./tree.js').Profile} P
 * @param {ReturnType<typeof import('./colour.js').colours>} col
 */
function painter(canvas, ctx, P, col) {
	/** @type {ImageData|null} */
	let pixels = null;
	/**
	 * @param {Shown} s
	 * @returns {Drawn}
	 */
	function paint(s) {
		const { t, tot, zoom, isMatch, before } = s;
		const depthOf = t.depthOf, parent = t.parent;
		let cssW = canvas.parentElement.clientWidth - 24;
		if (cssW < 100)
			cssW = 100;
		const pick = pickFrames(t, tot, zoom, cssW, s.showTracing);
		const maxDepth = pick.maxDepth;
		const cssH = PAD_TOP * 2 + (maxDepth + 1) * ROW;
		const dpr = window.devicePixelRatio || 1;
		if (canvas.width !== Math.round(cssW * dpr) || canvas.height !== Math.round(cssH * dpr)) {
			canvas.width = Math.round(cssW * dpr);
			canvas.height = Math.round(cssH * dpr);
			canvas.style.height = cssH + 'px';
		}
		ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		ctx.font = FONT;
		const charW = ctx.measureText('mmmmmmmmmm').width / 10 || 7;
		/** @type {Drawn} */
		const drawn = { node: [], x: [], w: [], y: [], maxDepth, cssW, charW };
		const Y = (d) => rowY(s.inverted, maxDepth, d);
		// the boxes straight into the pixels, a level's first row and then
		// its copies, then the callers of the zoomed frame dimmed, the labels
		// and the keyboard's cursor
		const W = canvas.width, H = canvas.height;
		if (!pixels || pixels.width !== W || pixels.height !== H)
			pixels = ctx.createImageData(W, H);
		const px = new Uint32Array(pixels.data.buffer);
		px.fill(col.rgba(getComputedStyle(document.body).backgroundColor || '#fff'));
		for (let k = 0; k < pick.node.length; k++) {
			const i = pick.node[k], x0 = pick.x0[k], w = frameWidth(x0, pick.x1[k]), y = Y(depthOf[i]);
			drawn.node.push(i);
			drawn.x.push(x0);
			drawn.w.push(w);
			drawn.y.push(y);
			// the first pixel row of its level only: the level's other rows are copies
			const r0 = Math.round(y * dpr) * W;
			px.fill(isMatch(i) ? col.rgba(MATCH) : !before && i > 0 ? col.namePixel(t, i)
				: col.rgba(col.colour(t, i, before)),
			r0 + Math.round(x0 * dpr),
			r0 + Math.min(Math.round((x0 + w) * dpr), W));
		}
		for (let d = 0; d <= maxDepth; d++) {
			const y = Y(d), r0 = Math.round(y * dpr), r1 = Math.min(Math.round((y + ROW - 1) * dpr), H);
			for (let r = r0 + 1; r < r1; r++)
				px.copyWithin(r * W, r0 * W, r0 * W + W);
		}
		ctx.putImageData(pixels, 0, 0);
		// the zoomed frame's callers: full width, dimmed
		for (let a = parent[zoom]; a >= 0; a = parent[a]) {
			const y = Y(depthOf[a]), fw = frameWidth(0, cssW);
			ctx.fillStyle = isMatch(a) ? MATCH : col.colour(t, a, before);
			ctx.globalAlpha = 0.55;
			ctx.fillRect(0, y, fw, ROW - 1);
			ctx.globalAlpha = 1;
			drawn.node.push(a);
			drawn.x.push(0);
			drawn.w.push(fw);
			drawn.y.push(y);
			const txt = frameText(label(P, t, a), fw, charW);
			if (txt) {
				ctx.fillStyle = isMatch(a) ? '#fff' : '#000';
				ctx.fillText(txt, 3, y + ROW - 6);
			}
		}
		for (const white of [false, true]) {
			ctx.fillStyle = white ? '#fff' : '#000';
			for (let k = 0; k < pick.node.length; k++) {
				const i = pick.node[k];
				if (drawn.w[k] < TEXT_MIN || isMatch(i) !== white)
					continue;
				const txt = frameText(label(P, t, i), drawn.w[k], charW);
				if (txt)
					ctx.fillText(txt, drawn.x[k] + 3, drawn.y[k] + ROW - 6);
			}
		}
		if (s.keyboard) {
			const k = drawn.node.indexOf(s.cursor);
			if (k >= 0) {
				ctx.strokeStyle = '#000';
				ctx.lineWidth = 2;
				ctx.strokeRect(drawn.x[k] + 1, drawn.y[k] + 1, Math.max(drawn.w[k] - 2, 1), ROW - 3);
			}
		}
		return drawn;
	}
	return { paint };
}

/**
 * @typedef {object} CallerDrawn  a frame of the sandwich's callers as painted
 * @property {number} node
 * @property {number} x
 * @property {number} w
 * @property {number} y
 * @property {string} name
 * @property {number} hits
 * @property {number|null} weight
 * @property {string[]} path
 */

/**
 * The sandwich's callers: a static flame graph, root (the function) at the
 * bottom
 * @param {HTMLCanvasElement} cv
 * @param {CanvasRenderingContext2D} cx
 * @param {number} width  the graph's width (CSS px)
 * @param {import('./tree.js').Profile} P
 * @param {ReturnType<typeof import('./colour.js').colours>} col
 * @param {{t: import('./tree.js').Tree, tot: ArrayLike<number>, isMatch: (i: number) => boolean,
 *	charW: number}} s  the callers' tree, laid out
 * @returns {CallerDrawn[]}
 */
function paintCallers(cv, cx, width, P, col, s) {
	const { t, tot, isMatch, charW } = s, N = t.N, depthOf = t.depthOf, start = t.start;
	const out = [];
	let md = 0;
	for (let i = 0; i < N; i++)
		md = Math.max(md, depthOf[i]);
	const w = width, h = PAD_TOP * 2 + md * ROW;
	const dpr = window.devicePixelRatio || 1;
	cv.width = Math.round(w * dpr);
	cv.height = Math.round(h * dpr);
	cv.style.height = h + 'px';
	cx.setTransform(dpr, 0, 0, dpr, 0, 0);
	cx.fillStyle = getComputedStyle(document.body).backgroundColor || '#fff';
	cx.fillRect(0, 0, w, h);
	cx.font = FONT;
	const scale = tot[0] ? w / tot[0] : 0;
	for (let i = 1; i < N; i++) {
		const x0 = Math.round(start[i] * scale), x1 = Math.round((start[i] + tot[i]) * scale);
		if (x1 <= x0)
			continue;
		const y = PAD_TOP + (md - depthOf[i]) * ROW, fw = x1 - x0 >= 2 ? x1 - x0 - 1 : 1;
		cx.fillStyle = isMatch(i) ? MATCH : col.colour(t, i, null);
		cx.fillRect(x0, y, fw, ROW - 1);
		out.push({ node: i, x: x0, w: fw, y, name: label(P, t, i), hits: t.totH[i],
			weight: P.weighted ? t.totW[i] : null, path: pathOf(P, t, i) });
		if (fw >= TEXT_MIN) {
			const max = Math.floor((fw - 6) / charW);
			let txt = label(P, t, i);
			if (txt.length > max)
				txt = max >= 3 ? txt.slice(0, max - 2) + '..' : '';
			cx.fillStyle = isMatch(i) ? '#fff' : '#000';
			cx.fillText(txt, x0 + 3, y + ROW - 6);
		}
	}
	return out;
}

module.exports = { painter, paintCallers };
