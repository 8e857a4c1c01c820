// SPDX-License-Identifier: GPL-2.0-or-later
// colour.js - the flame page's colours: a hue band per kind of frame,
// varied by the name (stable across pages and views), the differential's
// red and blue (diff.js), the search's magenta; as CSS and as the pixels
// draw.js fills. The caches are the colours object's, one per page.
// @ts-check
'use strict';

const { label } = require('./tree.js');
const { diffColour } = require('./diff.js');

/** @param {string} s */
function hash(s) {
	let h = 2166136261;
	for (let k = 0; k < s.length; k++) {
		h ^= s.charCodeAt(k);
		h = Math.imul(h, 16777619);
	}
	return (h >>> 0) / 4294967296;
}
// [hue, hue range, saturation, lightness, lightness range] of each kind
const BAND = Object.freeze([
	[20, 15, 82, 57, 8],   // kernel: orange
	[48, 12, 78, 52, 8],   // module: yellow
	[345, 18, 72, 62, 8],  // user: red
	[215, 0, 8, 72, 8],    // tracing: grey
	[205, 14, 55, 66, 8],  // command: blue
	[260, 10, 40, 72, 6],  // pid: violet
	[0, 0, 0, 82, 4],      // other: light grey
].map((b) => Object.freeze(b)));
const MATCH = 'rgb(230,0,230)';
const ROOT = 'hsl(0,0%,78%)';

/**
 * A frame's colour by its name: hue, saturation, lightness (one decimal)
 * @param {import('./tree.js').Profile} P
 * @param {import('./tree.js').Tree} t
 * @param {number} i
 * @returns {[number, number, number]}
 */
function nameHsl(P, t, i) {
	const b = BAND[t.kindOf[i]] || BAND[6];
	const s = label(P, t, i), v = hash(s), v2 = hash(s + '.');
	return [Number(((b[0] + b[1] * v) % 360).toFixed(1)), b[2], Number((b[3] + b[4] * v2).toFixed(1))];
}

/**
 * An HSL colour as a pixel of ImageData (RGBA bytes, little-endian)
 * @param {number} h
 * @param {number} s
 * @param {number} l
 */
function hslPx(h, s, l) {
	s /= 100;
	l /= 100;
	const k = (n) => (n + h / 30) % 12, a = s * Math.min(l, 1 - l);
	const f = (n) => Math.round(255 * (l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1))));
	return ((255 << 24) | (f(4) << 16) | (f(8) << 8) | f(0)) >>> 0;
}

/**
 * A CSS colour as a pixel: the page's own colours are hsl() and rgb(),
 * computed here; anything else as `readBack` normalises it (the canvas's
 * fillStyle: #rrggbb or rgba())
 * @param {string} css
 * @param {(css: string) => string} readBack
 */
function cssPx(css, readBack) {
	let m = /^hsl\(([\d.]+),([\d.]+)%,([\d.]+)%\)$/.exec(css);
	if (m)
		return hslPx(Number(m[1]) % 360, Number(m[2]), Number(m[3]));
	if ((m = /^rgb\((\d+),(\d+),(\d+)\)$/.exec(css)))
		return ((255 << 24) | (Number(m[3]) << 16) | (Number(m[2]) << 8) | Number(m[1])) >>> 0;
	const n = readBack(css);
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
	return ((a << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

/**
 * The colours of one page, cached by name (a large graph has tens of
 * thousands of frames to fill)
 * @param {import('./tree.js').Profile} P
 * @param {(css: string) => string} readBack  see cssPx()
 */
function colours(P, readBack) {
	const byName = new Map(), rgbaCache = new Map(), namePx = new Uint32Array(P.NN);
	return {
		/**
		 * A frame's CSS colour: the differential's when `before` is given
		 * (diff.js diffOn()), else its name's
		 * @param {import('./tree.js').Tree} t
		 * @param {number} i
		 * @param {import('./diff.js').Before|null} before
		 */
		colour(t, i, before) {
			if (i > 0 && before)
				return diffColour(t, before, i);
			if (i === 0)
				return ROOT;
			const key = t.nameOf[i];
			let c = byName.get(key);
			if (!c) {
				const [h, s, l] = nameHsl(P, t, i);
				c = 'hsl(' + h + ',' + s + '%,' + l + '%)';
				byName.set(key, c);
			}
			return c;
		},
		/**
		 * A frame's colour by its name as a pixel
		 * @param {import('./tree.js').Tree} t
		 * @param {number} i
		 */
		namePixel(t, i) {
			const nm = t.nameOf[i];
			if (!namePx[nm]) {
				const [h, s, l] = nameHsl(P, t, i);
				namePx[nm] = hslPx(h % 360, s, l);
			}
			return namePx[nm];
		},
		/** @param {string} css */
		rgba(css) {
			let v = rgbaCache.get(css);
			if (v === undefined)
				rgbaCache.set(css, (v = cssPx(css, readBack)));
			return v;
		},
	};
}

/**
 * A kind's swatch in the legend: the middle of its band
 * @param {number} k
 */
function kindSwatch(k) {
	const b = BAND[k];
	return 'hsl(' + (b[0] + b[1] / 2) + ',' + b[2] + '%,' + (b[3] + b[4] / 2) + '%)';
}

module.exports = { hash, BAND, MATCH, nameHsl, hslPx, cssPx, colours, kindSwatch };
