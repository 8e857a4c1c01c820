// SPDX-License-Identifier: GPL-2.0-or-later
// zoom.js - the flame graph of a zoom laid out on the page's pixels: the
// frames that cover a pixel column, the frame under a point, the rows, the
// labels' room, the callees the keyboard moves between. Pure: the tree and
// what the page shows of it are arguments; draw.js paints what this picks.
// @ts-check
'use strict';

const { K_TRACING } = require('./tree.js');

const ROW = 18;       // px per frame row
const TEXT_MIN = 22;  // narrower frames get no label
const PAD_TOP = 4;

/**
 * A tracing frame, hidden unless the page shows them
 * @param {import('./tree.js').Tree} t
 * @param {boolean} showTracing
 * @param {number} i
 */
function hidden(t, showTracing, i) {
	return !showTracing && t.kindOf[i] === K_TRACING;
}

/**
 * The y of depth `d`'s row (CSS px)
 * @param {boolean} inverted  drawn root at the bottom
 * @param {number} maxDepth
 * @param {number} d
 */
function rowY(inverted, maxDepth, d) {
	return inverted ? PAD_TOP + (maxDepth - d) * ROW : PAD_TOP + d * ROW;
}

/**
 * A frame's painted width: frames of two pixels or more keep their last
 * column as a gap to the next one
 * @param {number} x0
 * @param {number} x1
 */
function frameWidth(x0, x1) {
	return x1 - x0 >= 2 ? x1 - x0 - 1 : x1 - x0;
}

/**
 * A frame's label cut to its width (none under TEXT_MIN px)
 * @param {string} t  its label
 * @param {number} fw  its width
 * @param {number} charW  a character's width
 */
function frameText(t, fw, charW) {
	if (fw < TEXT_MIN)
		return '';
	const max = Math.floor((fw - 6) / charW);
	return t.length <= max ? t : max >= 3 ? t.slice(0, max - 2) + '..' : '';
}

/**
 * @typedef {object} Picked  the frames under the zoomed one that cover a
 *	pixel column, in preorder
 * @property {number[]} node
 * @property {number[]} x0  their extents, rounded
 * @property {number[]} x1
 * @property {number} maxDepth  the graph is as deep as the deepest of them
 */

/**
 * Frames are snapped to whole pixels: a frame paints the columns whose left
 * edge its rounded extent covers, so frames that tile a row tile it in
 * pixels too (a solid band even of sub-pixel frames), and one that covers
 * no column is not drawn, nor are its callees.
 * @param {import('./tree.js').Tree} t  laid out (tree.js layout())
 * @param {ArrayLike<number>} tot  what widths are proportional to
 * @param {number} zoom
 * @param {number} cssW  the graph's width
 * @param {boolean} showTracing
 * @returns {Picked}
 */
function pickFrames(t, tot, zoom, cssW, showTracing) {
	const pick = { node: [], x0: [], x1: [], maxDepth: t.depthOf[zoom] };
	if (!tot[zoom])
		return pick;
	const depthOf = t.depthOf, start = t.start, cstart = t.cstart, kids = t.kids;
	const scale = cssW / tot[zoom], base = start[zoom];
	const st = [zoom];
	let m = pick.maxDepth;
	while (st.length) {
		const n = st.pop();
		const x = (start[n] - base) * scale;
		const x0 = Math.round(x), x1 = Math.round(x + tot[n] * scale);
		if (x1 <= x0 || hidden(t, showTracing, n))
			continue;
		pick.node.push(n);
		pick.x0.push(x0);
		pick.x1.push(x1);
		if (depthOf[n] > m)
			m = depthOf[n];
		for (let k = cstart[n + 1] - 1; k >= cstart[n]; k--)
			st.push(kids[k]);
	}
	pick.maxDepth = m;
	return pick;
}

/**
 * The frame under a point of the graph (CSS px), -1 for none: the zoomed
 * frame's callers above it, else the frame that painted the pixel column
 * (see pickFrames())
 * @param {import('./tree.js').Tree} t
 * @param {ArrayLike<number>} tot
 * @param {number} zoom
 * @param {boolean} showTracing
 * @param {{maxDepth: number, cssW: number, inverted: boolean}} geo  the last draw's
 * @param {number} px
 * @param {number} py
 */
function frameAt(t, tot, zoom, showTracing, geo, px, py) {
	const { maxDepth, cssW, inverted } = geo;
	const depthOf = t.depthOf, parent = t.parent, start = t.start, cstart = t.cstart, kids = t.kids;
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
		if (found < 0 || hidden(t, showTracing, found))
			return -1;
		n = found;
	}
	return n;
}

/**
 * Frame `i` is the zoomed one or under it
 * @param {import('./tree.js').Tree} t
 * @param {number} zoom
 * @param {number} i
 */
function inZoom(t, zoom, i) {
	for (let a = i; a >= 0; a = t.parent[a])
		if (a === zoom)
			return true;
	return false;
}

/**
 * Frame `i` is a caller of the zoomed one
 * @param {import('./tree.js').Tree} t
 * @param {number} zoom
 * @param {number} i
 */
function isAncestorOfZoom(t, zoom, i) {
	for (let a = t.parent[zoom]; a >= 0; a = t.parent[a])
		if (a === i)
			return true;
	return false;
}

/**
 * A frame's callees as drawn (not hidden, not empty), left to right
 * @param {import('./tree.js').Tree} t
 * @param {ArrayLike<number>} tot
 * @param {boolean} showTracing
 * @param {number} n
 */
function visibleKids(t, tot, showTracing, n) {
	const out = [];
	for (let k = t.cstart[n]; k < t.cstart[n + 1]; k++)
		if (!hidden(t, showTracing, t.kids[k]) && tot[t.kids[k]] > 0)
			out.push(t.kids[k]);
	// in the order they are drawn (left-heavy or alphabetical)
	return out.sort((a, b) => t.start[a] - t.start[b]);
}

/**
 * The summed share of the frames `isMatch` takes under `from`: a match
 * nested in another counts once (flamegraph.pl)
 * @param {import('./tree.js').Tree} t
 * @param {ArrayLike<number>} tot
 * @param {boolean} showTracing
 * @param {(i: number) => boolean} isMatch
 * @param {number} from
 * @returns {{sum: number, frames: number}}
 */
function matchedUnder(t, tot, showTracing, isMatch, from) {
	let sum = 0, frames = 0;
	const st = [from];
	while (st.length) {
		const n = st.pop();
		if (hidden(t, showTracing, n))
			continue;
		if (isMatch(n)) {
			sum += tot[n];
			frames++;
			continue;
		}
		for (let k = t.cstart[n]; k < t.cstart[n + 1]; k++)
			st.push(t.kids[k]);
	}
	return { sum, frames };
}

module.exports = { ROW, TEXT_MIN, PAD_TOP, hidden, rowY, frameWidth, frameText, pickFrames,
	frameAt, inZoom, isAncestorOfZoom, visibleKids, matchedUnder };
