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
(function () {
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

	let data;
	try {
		data = JSON.parse($('stacktop-data').textContent);
		if (!data || data.format !== 'stacktop-flame' || !Array.isArray(data.nodes) ||
		    !Array.isArray(data.names))
			throw new Error('not a stacktop flame graph');
	} catch (e) {
		$('notes').textContent = 'cannot read the profile in this file: ' + e.message;
		return;
	}

	const meta = data.meta || {};
	const names = data.names;
	const stride = data.stride;
	const raw = data.nodes;
	const N = Math.floor(raw.length / stride);
	const weighted = stride === 4;

	// ---- the tree: typed arrays, in the writer's preorder -------------------------
	const nameOf = new Int32Array(N);
	const depthOf = new Uint16Array(N);
	const parent = new Int32Array(N);
	const selfH = new Float64Array(N);
	const selfW = weighted ? new Float64Array(N) : null;
	const totH = new Float64Array(N);
	const totW = weighted ? new Float64Array(N) : null;
	const kindOf = new Uint8Array(N);
	{
		const path = new Int32Array(65536);
		for (let i = 0, o = 0; i < N; i++, o += stride) {
			const d = raw[o];
			if (i === 0 ? d !== 0 : (d < 1 || d > depthOf[i - 1] + 1 || d >= path.length)) {
				$('notes').textContent = 'the profile in this file is damaged (node ' + i + ')';
				return;
			}
			depthOf[i] = d;
			parent[i] = i === 0 ? -1 : path[d - 1];
			path[d] = i;
			nameOf[i] = raw[o + 1];
			selfH[i] = raw[o + 2];
			if (weighted)
				selfW[i] = raw[o + 3];
			const nm = names[nameOf[i]];
			kindOf[i] = nm ? nm[1] : 6;
		}
		for (let i = N - 1; i >= 0; i--) {
			totH[i] += selfH[i];
			if (weighted)
				totW[i] += selfW[i];
			if (i > 0) {
				totH[parent[i]] += totH[i];
				if (weighted)
					totW[parent[i]] += totW[i];
			}
		}
	}
	// children, in order (CSR)
	const nchild = new Int32Array(N + 1);
	for (let i = 1; i < N; i++)
		nchild[parent[i]]++;
	const cstart = new Int32Array(N + 1);
	for (let i = 0; i < N; i++)
		cstart[i + 1] = cstart[i] + nchild[i];
	const kids = new Int32Array(Math.max(N - 1, 1));
	{
		const fill = cstart.slice(0, N);
		for (let i = 1; i < N; i++)
			kids[fill[parent[i]]++] = i;
	}

	// ---- state ------------------------------------------------------------------
	let byWeight = weighted && !!(meta.weight && meta.weight.ranked);
	let tot = byWeight ? totW : totH;           // what widths are proportional to
	const start = new Float64Array(N);          // a frame's left edge, in tot units
	let showTracing = false;
	let inverted = false;
	// left-heavy (speedscope's): each frame's callees heaviest first, not
	// alphabetical; kept in the URL fragment, so a shared link opens on it
	let leftHeavy = /(^#|,)left-heavy(,|$)/.test(location.hash);
	let zoom = 0;
	let cursor = -1;                            // the keyboard's frame
	let hover = -1;
	let matchName = null;                       // Uint8Array over names, or null
	let maxDepth = 0;
	let cssW = 0;
	const drawn = { node: [], x: [], w: [], y: [] }; // what the last draw painted

	function layout() {
		tot = byWeight ? totW : totH;
		if (leftHeavy) {
			// a parent's index is below its callees' (preorder): placed first
			for (let p = 0; p < N; p++) {
				const ks = Array.from(kids.subarray(cstart[p], cstart[p + 1]));
				ks.sort((a, b) => tot[b] - tot[a] || a - b);
				let x = start[p];
				for (const k of ks) {
					start[k] = x;
					x += tot[k];
				}
			}
			return;
		}
		const next = new Float64Array(N);
		for (let i = 1; i < N; i++) {
			const p = parent[i];
			start[i] = start[p] + next[p];
			next[p] += tot[i];
		}
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
	function colour(i) {
		if (i === 0)
			return 'hsl(0,0%,78%)';
		const key = nameOf[i];
		let c = colourCache.get(key);
		if (!c) {
			const b = BAND[kindOf[i]] || BAND[6];
			const v = hash(label(i)), v2 = hash(label(i) + '.');
			c = 'hsl(' + ((b[0] + b[1] * v) % 360).toFixed(1) + ',' + b[2] + '%,' +
				(b[3] + b[4] * v2).toFixed(1) + '%)';
			colourCache.set(key, c);
		}
		return c;
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
		const m = document.createElement('span');
		m.style.setProperty('--swatch', MATCH);
		m.textContent = 'search match';
		el.appendChild(m);
	}

	// ---- numbers ----------------------------------------------------------------
	function num(n) {
		return Math.round(n).toLocaleString('en-US');
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
		c.push('lost records: ' + num(meta.gone || 0));
		$('counts').textContent = c.join(' · ');
		const notes = [];
		if (meta.losses)
			notes.push(meta.losses);
		else if (delta && meta.lost > 0)
			notes.push(num(meta.lost) + ' events were lost since start, none in the last interval');
		if (meta.user_stacks && / without/.test(meta.user_stacks))
			notes.push(meta.user_stacks + ' (those are the [user stack ...] boxes)');
		if (!N || totH[0] === 0)
			notes.push('no stacks to show');
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
	function visibleDepth() {
		// the deepest visible frame under the zoomed one
		let m = depthOf[zoom];
		const st = [zoom];
		while (st.length) {
			const n = st.pop();
			if (depthOf[n] > m)
				m = depthOf[n];
			for (let k = cstart[n]; k < cstart[n + 1]; k++)
				if (!hidden(kids[k]))
					st.push(kids[k]);
		}
		return m;
	}

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
	function drawFrame(i, x0, x1, y, dim) {
		const fw = x1 - x0 >= 2 ? x1 - x0 - 1 : x1 - x0;
		ctx.fillStyle = isMatch(i) ? MATCH : colour(i);
		ctx.globalAlpha = dim ? 0.55 : 1;
		ctx.fillRect(x0, y, fw, ROW - 1);
		ctx.globalAlpha = 1;
		drawn.node.push(i);
		drawn.x.push(x0);
		drawn.w.push(fw);
		drawn.y.push(y);
		if (fw >= TEXT_MIN) {
			const max = Math.floor((fw - 6) / charW);
			let t = label(i);
			if (t.length > max)
				t = max >= 3 ? t.slice(0, max - 2) + '..' : '';
			if (t) {
				ctx.fillStyle = isMatch(i) ? '#fff' : '#000';
				ctx.fillText(t, x0 + 3, y + ROW - 6);
			}
		}
		if (i === cursor && keyboard) {
			ctx.strokeStyle = '#000';
			ctx.lineWidth = 2;
			ctx.strokeRect(x0 + 1, y + 1, Math.max(fw - 2, 1), ROW - 3);
		}
	}

	function draw() {
		cssW = canvas.parentElement.clientWidth - 24;
		if (cssW < 100)
			cssW = 100;
		maxDepth = visibleDepth();
		const cssH = PAD_TOP * 2 + (maxDepth + 1) * ROW;
		const dpr = window.devicePixelRatio || 1;
		if (canvas.width !== Math.round(cssW * dpr) || canvas.height !== Math.round(cssH * dpr)) {
			canvas.width = Math.round(cssW * dpr);
			canvas.height = Math.round(cssH * dpr);
			canvas.style.height = cssH + 'px';
		}
		ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		ctx.fillStyle = getComputedStyle(document.body).backgroundColor || '#fff';
		ctx.fillRect(0, 0, cssW, cssH);
		ctx.font = '12px ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace';
		charW = ctx.measureText('mmmmmmmmmm').width / 10 || 7;
		drawn.node.length = drawn.x.length = drawn.w.length = drawn.y.length = 0;
		// the zoomed frame's callers: full width, dimmed
		for (let a = parent[zoom]; a >= 0; a = parent[a])
			drawFrame(a, 0, cssW, rowY(depthOf[a]), true);
		if (!tot[zoom])
			return;
		const scale = cssW / tot[zoom], base = start[zoom];
		const st = [zoom];
		while (st.length) {
			const n = st.pop();
			const x = (start[n] - base) * scale;
			const x0 = Math.round(x), x1 = Math.round(x + tot[n] * scale);
			if (x1 <= x0 || hidden(n))
				continue;
			drawFrame(n, x0, x1, rowY(depthOf[n]), false);
			for (let k = cstart[n + 1] - 1; k >= cstart[n]; k--)
				st.push(kids[k]);
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
		// the frame that painted the pixel column (see drawFrame())
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
		if (self > 0 || selfw > 0)
			lines.push('self: ' + num(self) + ' hits' + (weighted ? ', ' + amount(selfw) : ''));
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
	}
	function isAncestorOfZoom(i) {
		for (let a = parent[zoom]; a >= 0; a = parent[a])
			if (a === i)
				return true;
		return false;
	}
	function refresh() {
		runSearch();
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
		showTip(frameAt(ev.clientX - r.left, ev.clientY - r.top), ev.clientX, ev.clientY);
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
		if (cursor >= 0 && hidden(cursor))
			cursor = parent[cursor];
		refresh();
	});
	$('invert').addEventListener('change', () => {
		inverted = $('invert').checked;
		draw();
	});
	$('heavy').checked = leftHeavy;
	$('heavy').addEventListener('change', () => {
		leftHeavy = $('heavy').checked;
		history.replaceState(null, '', leftHeavy ? '#left-heavy' : location.pathname + location.search);
		layout();
		refresh();
	});
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
		    (document.activeElement && document.activeElement.tagName === 'INPUT'))
			return;
		if (ev.key === 't') {
			$('tracing').click();
		} else if (ev.key === 'i') {
			$('invert').click();
		} else if (ev.key === 'l') {
			$('heavy').click();
		} else if (ev.key === 'w' && weighted) {
			$('measure').click();
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
				leftHeavy };
		},
	};

	facts();
	legend();
	layout();
	draw();
	requestAnimationFrame(() => {
		// open time as the browser measures it: navigation start to the first draw painted
		window.stacktopReady = performance.now();
		performance.mark('stacktop-ready');
		document.body.dataset.ready = '1';
	});
})();
