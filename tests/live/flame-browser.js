// SPDX-License-Identifier: GPL-2.0-or-later
// flame-browser.js: open a `stacktop --format html` page in Debian's
// chromium (headless, driven by puppeteer-core) and check what a user sees.
//
//   node flame-browser.js MODULES CHROMIUM check PAGE.html EXPECT.json OUTDIR
//   node flame-browser.js MODULES CHROMIUM open PAGE.html OUTDIR
//
// MODULES: the node_modules directory holding puppeteer-core. EXPECT.json:
//   stacks   [[[root, ..., leaf], count], ...]: what the graph must show,
//            from stacktop's folded output of the same view (or the
//            generator of a constructed snapshot), tracing machinery left out
//   search   [{q, regex, share}]: the share (0..1) the search must report
//   literal  [name, ...]: frame names that must be shown exactly (escaping)
//   kinds    {name: kind}: the kind a frame must be coloured as
//   apart    [[name, name]]: frames whose colours must differ in hue band
//   node flame-browser.js MODULES CHROMIUM views PAGE.html OUTDIR
//            the page of tests/fixtures/flame/gen-known.py's snapshot: its
//            views (left-heavy, inverted, sandwich, transforms, filters,
//            the URL fragment) with the counts that workload must give,
//            driven by the keyboard where the page offers it; screenshots
//            in OUTDIR
//   node flame-browser.js MODULES CHROMIUM damaged PAGE.html OUTDIR
//            a page whose profile was altered: the notes say it cannot be
//            read, nothing is drawn, no script error
//   node flame-browser.js MODULES CHROMIUM svg IMAGE.svg EXPECT.json OUTDIR
//            the static image: every frame of the stacks at least 2 px wide
//            is where the stacks put it (laid out here, root at the bottom,
//            callees in name order) within a pixel, with its tooltip
//            (<title>); no script, no request
// Every check fails the run with a message; `open` only opens the page,
// times it and checks the screenshot and the network. A JSON summary goes to
// stdout (open time from the page's own performance.now(), frames, nodes).
'use strict';
const path = require('path');
const fs = require('fs');

const [modules, chromium, cmd, page, ...rest] = process.argv.slice(2);
const puppeteer = require(path.join(modules, 'puppeteer-core'));

function fail(msg) {
	console.error('FAIL: ' + msg);
	process.exit(1);
}
function check(ok, msg) {
	if (!ok)
		fail(msg);
}

// PNG -> pixels, decoded by the browser itself in a blank page
async function decode(browser, png) {
	const p = await browser.newPage();
	const url = 'data:image/png;base64,' + png.toString('base64');
	const px = await p.evaluate(async (u) => {
		const img = new Image();
		img.src = u;
		await img.decode();
		const c = document.createElement('canvas');
		c.width = img.width;
		c.height = img.height;
		const x = c.getContext('2d');
		x.drawImage(img, 0, 0);
		return { w: img.width, h: img.height, d: Array.from(x.getImageData(0, 0, img.width, img.height).data) };
	}, url);
	await p.close();
	px.at = (x, y) => {
		const o = (Math.round(y) * px.w + Math.round(x)) * 4;
		return [px.d[o], px.d[o + 1], px.d[o + 2]];
	};
	return px;
}

const fname = (f) => f.path.join(';') || 'all';
const same = (a, b) => a[0] === b[0] && a[1] === b[1] && a[2] === b[2];

// the run of non-background pixels on row y around x: the painted frame
function run(px, x, y, bg) {
	let a = Math.round(x), b = Math.round(x);
	if (same(px.at(a, y), bg))
		return null;
	while (a > 0 && !same(px.at(a - 1, y), bg))
		a--;
	while (b < px.w - 1 && !same(px.at(b + 1, y), bg))
		b++;
	return [a, b];
}

function hue(rgb) {
	const [r, g, b] = rgb.map((v) => v / 255);
	const max = Math.max(r, g, b), min = Math.min(r, g, b);
	if (max === min)
		return -1; // grey
	let h;
	if (max === r)
		h = ((g - b) / (max - min)) % 6;
	else if (max === g)
		h = (b - r) / (max - min) + 2;
	else
		h = (r - g) / (max - min) + 4;
	return (h * 60 + 360) % 360;
}

// the static SVG image (src/output/svg.c), against a layout made here from the stacks
async function svgCheck(p, expect, summary, shot) {
	const geo = await p.evaluate(() => {
		const svg = document.documentElement;
		return {
			tag: svg.tagName,
			height: Number(svg.getAttribute('height')),
			scripts: document.getElementsByTagName('script').length,
			foreign: document.getElementsByTagName('foreignObject').length,
			title: (svg.querySelector(':scope > title') || {}).textContent,
			frames: Array.from(svg.querySelectorAll('g')).map((g) => {
				const r = g.querySelector('rect');
				const b = r.getBoundingClientRect();
				return { title: g.querySelector('title').textContent, x: Number(r.getAttribute('x')),
					y: Number(r.getAttribute('y')), w: Number(r.getAttribute('width')),
					bx: b.x, bw: b.width, fill: r.getAttribute('fill'),
					text: (g.querySelector('text') || {}).textContent || '' };
			}),
		};
	});
	check(geo.tag === 'svg' && geo.scripts === 0 && geo.foreign === 0, 'the image holds a script or markup');
	summary.frames = geo.frames.length;
	// the layout the stacks imply: callees in name order (byte order, as
	// stacktop sorts), widths of the 1180 px between the 10 px margins
	const kids = new Map();
	let total = 0;
	for (const [stack, count] of expect.stacks) {
		total += count;
		for (let d = 1; d <= stack.length; d++) {
			const key = JSON.stringify(stack.slice(0, d - 1));
			if (!kids.has(key))
				kids.set(key, new Map());
			const m = kids.get(key);
			m.set(stack[d - 1], (m.get(stack[d - 1]) || 0) + count);
		}
	}
	const W = 1180, scale = W / total;
	let checked = 0;
	const want = [{ path: [], name: 'all', start: 0, count: total }];
	for (let k = 0; k < want.length; k++) {
		const f = want[k];
		const m = kids.get(JSON.stringify(f.path));
		if (!m)
			continue;
		let at = f.start;
		const byte = (a, b) => (Buffer.compare(Buffer.from(a), Buffer.from(b)));
		for (const name of Array.from(m.keys()).sort(byte)) {
			want.push({ path: f.path.concat([name]), name, start: at, count: m.get(name) });
			at += m.get(name);
		}
	}
	for (const f of want) {
		const x = 10 + f.start * scale, w = f.count * scale;
		if (w < 2)
			continue;
		const y = geo.height - 10 - (f.path.length + 1) * 16;
		const g = geo.frames.find((r) => r.y === y && Math.abs(r.x - x) <= 1 &&
			r.title.startsWith(f.name + ' '));
		check(g, 'no frame ' + (f.path.join(';') || 'all') + ' at x ' + x.toFixed(1) + ', y ' + y);
		check(Math.abs(g.w + 1 - w) <= 1, 'frame ' + (f.path.join(';') || 'all') + ' is ' + (g.w + 1) +
			' px wide, its count says ' + w.toFixed(2));
		check(Math.abs(g.bx - g.x) < 0.5 && Math.abs(g.bw - g.w) < 0.5, 'frame ' + f.name +
			' is laid out at ' + g.bx + '+' + g.bw + ', not ' + g.x + '+' + g.w);
		const hits = (f.count === 1 ? '1 hits' : f.count + ' hits');
		check(g.title.includes('(' + hits + ', ' + (100 * f.count / total).toFixed(2) + '%'),
			'the tooltip of ' + f.name + ' is ' + JSON.stringify(g.title));
		checked++;
	}
	check(geo.frames.length === checked, 'the image has ' + geo.frames.length + ' frames, the stacks ' + checked);
	summary.widths_checked = checked;
	for (const [a, b] of expect.apart || []) {
		const fa = geo.frames.find((g) => g.title.startsWith(a + ' ')), fb = geo.frames.find((g) => g.title.startsWith(b + ' '));
		check(fa && fb, 'no frame ' + a + ' or ' + b);
		const rgb = (c) => c.match(/[0-9]+/g).map(Number);
		const ha = hue(rgb(fa.fill)), hb = hue(rgb(fb.fill));
		check(Math.abs(ha - hb) >= 10 && Math.abs(ha - hb) <= 350, a + ' and ' + b + ' are coloured alike');
	}
	for (const lit of expect.literal || [])
		check(geo.frames.some((g) => g.title.startsWith(lit + ' ')), 'no frame named ' + JSON.stringify(lit));
	for (const t of expect.header || [])
		if (t.startsWith('host'))
			check(geo.title.endsWith(t), 'the title does not say ' + JSON.stringify(t));
	await shot();
}

// ---- views: the known workload of tests/fixtures/flame/gen-known.py ----------
//   main;a;b;c 40 (sched_switch alpha/10 cpu0 30, kmalloc beta/20 cpu1 10)
//   main;a;c 30 (kmalloc beta/20 cpu1), main;d 75 (sched_switch alpha/10 cpu1)
//   main;r;r;c 10 (kmalloc beta/20 cpu0); 155 in all
async function viewsCheck(p, outdir, summary) {
	const api = (fn, ...args) => p.evaluate((f, a) => window.stacktopFlame[f](...a), fn, args);
	const graph = async () => {
		const out = {};
		for (const f of await api('frames')) {
			// drawn where it belongs: a place and a width of at least a pixel
			check(Number.isFinite(f.x) && Number.isFinite(f.w) && f.w >= 1,
				'frame ' + f.path.join(';') + ' drawn at ' + f.x + ' width ' + f.w);
			out[f.path.join(';') || 'all'] = f;
		}
		return out;
	};
	const counts = async () => {
		const g = await graph(), out = {};
		for (const k of Object.keys(g))
			out[k] = g[k].hits;
		return out;
	};
	const same = (got, want, what) => check(JSON.stringify(got) === JSON.stringify(want),
		what + ': got ' + JSON.stringify(got) + ', want ' + JSON.stringify(want));
	const sorted = (o) => Object.fromEntries(Object.entries(o).sort());
	const key = async (k) => {
		await p.keyboard.press(k);
		await p.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
	};
	const shot = (name) => p.screenshot({ path: path.join(outdir, name + '.png'), fullPage: true });
	const FULL = { all: 155, main: 155, 'main;a': 70, 'main;a;b': 40, 'main;a;b;c': 40,
		'main;a;c': 30, 'main;d': 75, 'main;r': 10, 'main;r;r': 10, 'main;r;r;c': 10 };
	await p.focus('#flame');
	same(sorted(await counts()), sorted(FULL), 'the graph');
	// alphabetical, then left-heavy (l): d (75) before a (70) before r (10)
	let g = await graph();
	check(g['main;a'].x < g['main;d'].x && g['main;d'].x < g['main;r'].x, 'not alphabetical');
	await key('l');
	g = await graph();
	check(g['main;d'].x < g['main;a'].x && g['main;a'].x < g['main;r'].x,
		'left-heavy: d, a, r expected, at ' + [g['main;d'].x, g['main;a'].x, g['main;r'].x]);
	check(g['main;a;b'].x < g['main;a;c'].x, 'left-heavy: b (40) before c (30) under a');
	check((await api('state')).hash.includes('left-heavy'), 'left-heavy is not in the URL');
	await key('l');
	// inverted (r): the leaves at the root, with their self counts
	await key('r');
	const inv = await counts();
	same(sorted(inv), sorted({ all: 155, c: 80, 'c;b': 40, 'c;b;a': 40, 'c;b;a;main': 40, 'c;a': 30,
		'c;a;main': 30, 'c;r': 10, 'c;r;r': 10, 'c;r;r;main': 10, d: 75, 'd;main': 75 }), 'inverted');
	await shot('inverted');
	await key('r');
	same(sorted(await counts()), sorted(FULL), 'inverted off');
	// the sandwich (s): the function table, keyboard only; before a function
	// is chosen, no callers' canvas (it showed as a black box)
	await key('s');
	check(await p.$eval('#callers', (c) => c.hidden && c.getBoundingClientRect().height === 0),
		'the callers\' canvas shows with no function chosen');
	const table = {};
	for (const r of await api('table'))
		table[r.name] = [r.self, r.total];
	same(sorted(table), sorted({ main: [0, 155], a: [0, 70], b: [0, 40], c: [80, 80], d: [75, 75], r: [0, 10] }),
		'the function table (self, total; r recursive, counted once)');
	check((await api('table'))[0].name === 'main', 'the table is not by total');
	await p.click('#fns th button[data-key="self"]');
	check((await api('table'))[0].name === 'c', 'sorting by self: ' + JSON.stringify(await api('table')));
	await p.click('#fns th button[data-key="name"]');
	same((await api('table')).map((r) => r.name), ['a', 'b', 'c', 'd', 'main', 'r'], 'sorted by name');
	// searched
	await p.type('#search', 'a');
	await p.evaluate(() => new Promise((r) => setTimeout(r, 300)));
	same((await api('table')).map((r) => r.name), ['a', 'main'], 'the table searched "a"');
	await p.evaluate(() => { document.getElementById('search').value = ''; });
	await p.focus('#search');
	await key('Escape');
	// choose with the keyboard: the rows in name order a, b, c, ...; Down twice, Enter: c
	await p.focus('#fns tbody tr');
	await key('ArrowDown');
	await key('ArrowDown');
	await key('Enter');
	const sandwich = async (fn, wantCallers, wantCallees, total) => {
		const st = await api('state');
		check(st.fn === fn, 'the sandwich is of ' + st.fn + ', not ' + fn);
		const cl = {};
		for (const f of await api('callers'))
			cl[f.path.join(';')] = f.hits;
		same(sorted(cl), sorted(wantCallers), 'the callers of ' + fn);
		const ce = await counts();
		delete ce.all;
		same(sorted(ce), sorted(wantCallees), 'the callees of ' + fn);
		// what adds up: the callers one level up, the callees one level down
		// with its self count, each to the function's total
		const up = Object.entries(cl).filter(([k]) => k.split(';').length === 2).reduce((a, [, v]) => a + v, 0);
		const down = Object.entries(ce).filter(([k]) => k.split(';').length === 2).reduce((a, [, v]) => a + v, 0);
		const selfOf = table[fn][0];
		check(cl[fn] === total && ce[fn] === total, fn + ': callers ' + cl[fn] + ', callees ' + ce[fn] + ', total ' + total);
		check(up + (st.fn === 'main' ? total : 0) === total || up === total,
			fn + ': its callers add up to ' + up + ', not ' + total);
		check(down + selfOf === total, fn + ': its callees and self add up to ' + (down + selfOf) + ', not ' + total);
	};
	await sandwich('c', { c: 80, 'c;b': 40, 'c;b;a': 40, 'c;b;a;main': 40, 'c;a': 30, 'c;a;main': 30,
		'c;r': 10, 'c;r;r': 10, 'c;r;r;main': 10 }, { c: 80 }, 80);
	await shot('sandwich-c');
	await p.click('#fns tbody tr[data-name]'); // 'a', the first by name
	await sandwich('a', { a: 70, 'a;main': 70 }, { a: 70, 'a;b': 40, 'a;b;c': 40, 'a;c': 30 }, 70);
	// recursive: counted once, callers from its outermost frame
	const rrow = await p.$$eval('#fns tbody tr', (rs) => rs.findIndex((r) => r.firstChild.textContent === 'r'));
	await (await p.$$('#fns tbody tr'))[rrow].click();
	await sandwich('r', { r: 10, 'r;main': 10 }, { r: 10, 'r;r': 10, 'r;r;c': 10 }, 10);
	await shot('sandwich-r');
	await p.focus('#flame');
	await key('g');
	same(sorted(await counts()), sorted(FULL), 'back to the flame graph');
	// transforms: select main;a (arrow keys: Down to main, Down to its heaviest, d; Left: a)
	await key('ArrowDown');
	await key('ArrowDown');
	await key('ArrowDown');
	await key('ArrowLeft');
	// the buttons follow the keyboard's frame (a keyboard user can Tab to them)
	check(await p.evaluate(() => !document.getElementById('focus').disabled &&
		!document.getElementById('merge').disabled), 'focus and merge stay disabled for the keyboard\'s frame');
	check((await api('state')).cursor >= 0, 'no cursor');
	await key('f');
	same(sorted(await counts()), sorted({ all: 70, a: 70, 'a;b': 40, 'a;b;c': 40, 'a;c': 30 }), 'focus on a');
	same((await api('state')).transforms, ['focus:a'], 'the transforms');
	await shot('focus-a');
	await key('u');
	same(sorted(await counts()), sorted(FULL), 'undo of the focus');
	// merge a: its callees join main
	for (const k of ['ArrowDown', 'ArrowDown', 'ArrowDown', 'ArrowLeft'])
		await key(k);
	await key('m');
	same(sorted(await counts()), sorted({ all: 155, main: 155, 'main;b': 40, 'main;b;c': 40, 'main;c': 30,
		'main;d': 75, 'main;r': 10, 'main;r;r': 10, 'main;r;r;c': 10 }), 'merge a');
	// merge r too, then back to the first step by the breadcrumb
	g = await graph();
	await p.mouse.click((await p.$eval('#flame', (c) => c.getBoundingClientRect().left)) + g['main;r'].x + 2,
		(await p.$eval('#flame', (c) => c.getBoundingClientRect().top)) + g['main;r'].y + 5);
	await key('m');
	same(sorted(await counts()), sorted({ all: 155, main: 155, 'main;b': 40, 'main;b;c': 40, 'main;c': 40,
		'main;d': 75 }), 'merge a, then r');
	same((await api('state')).transforms, ['merge:a', 'merge:r'], 'the transforms');
	await p.click('#crumbs button:last-of-type');
	same((await api('state')).transforms, ['merge:a'], 'the breadcrumb back one step');
	await p.click('#crumbs button');
	same(sorted(await counts()), sorted(FULL), 'the breadcrumb back to the complete profile');
	// filters
	const filter = async (id, value, want, what) => {
		await p.select('#' + id, value);
		same(sorted(await counts()), sorted(want), what);
	};
	await filter('f-event', '1', { all: 50, main: 50, 'main;a': 40, 'main;a;b': 10, 'main;a;b;c': 10,
		'main;a;c': 30, 'main;r': 10, 'main;r;r': 10, 'main;r;r;c': 10 }, 'event kmem:kmalloc');
	await filter('f-event', '-1', FULL, 'no event filter');
	await filter('f-proc', 'comm:alpha', { all: 105, main: 105, 'main;a': 30, 'main;a;b': 30,
		'main;a;b;c': 30, 'main;d': 75 }, 'command alpha');
	await filter('f-proc', 'pid:20', { all: 50, main: 50, 'main;a': 40, 'main;a;b': 10, 'main;a;b;c': 10,
		'main;a;c': 30, 'main;r': 10, 'main;r;r': 10, 'main;r;r;c': 10 }, 'pid 20');
	await filter('f-proc', '', FULL, 'no process filter');
	await filter('f-cpu', '1', { all: 115, main: 115, 'main;a': 40, 'main;a;b': 10, 'main;a;b;c': 10,
		'main;a;c': 30, 'main;d': 75 }, 'CPU 1');
	await shot('cpu1');
	await filter('f-cpu', '-1', FULL, 'no CPU filter');
	// the tooltip: self count, and it follows a click-zoom
	g = await graph();
	const box = await p.$eval('#flame', (c) => { const r = c.getBoundingClientRect(); return [r.left, r.top]; });
	const at = (f) => [box[0] + f.x + 3, box[1] + f.y + 5];
	await p.mouse.move(...at(g['main;d']));
	let tip = await api('tip');
	check(/^d\n/.test(tip) && /hits: 75/.test(tip) && /self: 75 hits/.test(tip), 'the tooltip of d: ' + tip);
	await p.mouse.move(...at(g['main;a']));
	tip = await api('tip');
	check(/^a\n/.test(tip) && /self: 0 hits/.test(tip), 'the tooltip of a: ' + tip);
	await p.mouse.click(...at(g['main;a;c']));
	tip = await api('tip');
	check(/^c\n/.test(tip) && /hits: 30/.test(tip), 'the tooltip after zooming into main;a;c: ' + tip);
	// then hovering where main;a;c now is shows main;a;c, not what was there
	const z = await graph();
	await p.mouse.move(...at(z['main;a']));
	tip = await api('tip');
	check(/^a\n/.test(tip), 'the tooltip on the zoomed graph: ' + tip);
	await key('Escape');
	// the URL fragment keeps the view: sandwich of r, left-heavy, a merge, a filter
	await p.select('#f-event', '1');
	for (const k of ['ArrowDown', 'ArrowDown', 'ArrowDown', 'ArrowLeft'])
		await key(k);
	await key('m'); // merge a
	await key('l');
	await key('s');
	const rr = await p.$$eval('#fns tbody tr', (rs) => rs.findIndex((r) => r.firstChild.textContent === 'r'));
	await (await p.$$('#fns tbody tr'))[rr].click();
	const before = await api('state'), cbefore = await counts(), callersBefore = await api('callers');
	check(before.hash.includes('view=sandwich') && before.hash.includes('fn=r') && before.hash.includes('event='),
		'the URL fragment: ' + before.hash);
	await shot('before-reload');
	await p.reload({ waitUntil: 'load' });
	await p.waitForSelector('body[data-ready="1"]');
	const after = await api('state');
	for (const k of ['view', 'leftHeavy', 'transforms', 'fn', 'event', 'proc', 'cpu', 'hash'])
		same(after[k], before[k], 'after a reload, ' + k);
	same(await counts(), cbefore, 'after a reload, the callees');
	same(await api('callers'), callersBefore, 'after a reload, the callers');
	same(await p.$eval('#f-event', (e) => e.value), '1', 'after a reload, the event filter shown');
	await shot('after-reload');
	summary.views = 'ok';
}

async function main() {
	const one = cmd === 'open' || cmd === 'views' || cmd === 'damaged';
	const outdir = one ? rest[0] : rest[1];
	const expect = one ? {} : JSON.parse(fs.readFileSync(rest[0], 'utf8'));
	const fileUrl = 'file://' + path.resolve(page);
	const browser = await puppeteer.launch({
		executablePath: chromium,
		headless: true,
		args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
			'--disable-background-networking', '--disable-component-update', '--disable-sync',
			'--user-data-dir=' + path.join(outdir, 'chromium-profile')],
	});
	const problems = [];
	const summary = {};
	try {
		const p = await browser.newPage();
		await p.setViewport({ width: 1200, height: 800, deviceScaleFactor: 1 });
		// no request may leave the page: anything but the file itself is
		// refused and fails the run
		const requests = [];
		await p.setRequestInterception(true);
		p.on('request', (r) => {
			if (r.url().split('#')[0] === fileUrl) {
				r.continue();
			} else {
				requests.push(r.url());
				r.abort();
			}
		});
		p.on('pageerror', (e) => problems.push('page error: ' + e.message));
		p.on('console', (m) => {
			if (m.type() === 'error' || m.type() === 'warning')
				problems.push('console ' + m.type() + ': ' + m.text());
		});
		p.on('dialog', (d) => {
			problems.push('a dialog opened: ' + d.message());
			d.dismiss();
		});
		await p.evaluateOnNewDocument(() => {
			document.addEventListener('securitypolicyviolation', (e) => {
				console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI);
			});
		});
		await p.goto(fileUrl, { waitUntil: 'load', timeout: 60000 });
		if (cmd === 'svg') {
			await svgCheck(p, expect, summary, async () => {
				const png = await p.screenshot({ path: path.join(outdir, 'image.png') });
				const px = await decode(browser, Buffer.from(png));
				let s1 = 0, s2 = 0;
				const n = px.w * px.h;
				for (let k = 0; k < n; k++) {
					const v = (px.d[4 * k] + px.d[4 * k + 1] + px.d[4 * k + 2]) / 3;
					s1 += v;
					s2 += v * v;
				}
				summary.variance = Math.round(s2 / n - (s1 / n) ** 2);
				check(summary.variance > 100, 'the image looks blank');
			});
			check(requests.length === 0, 'requests left the image: ' + requests.join(' '));
			check(problems.length === 0, problems.join('; '));
			summary.requests = 0;
			console.log(JSON.stringify(summary));
			return;
		}
		if (cmd === 'damaged') {
			// a page whose data was altered: it says so, draws nothing, throws nothing
			await p.waitForFunction('/cannot read|damaged/.test(document.getElementById("notes").textContent)',
				{ timeout: 60000 });
			summary.notes = await p.$eval('#notes', (e) => e.textContent);
			check(await p.evaluate(() => document.body.dataset.ready !== '1'), 'a damaged page was drawn');
			check(requests.length === 0 && problems.length === 0,
				'the damaged page: ' + problems.concat(requests).join('; '));
			console.log(JSON.stringify(summary));
			return;
		}
		await p.waitForFunction('document.body.dataset.ready === "1"', { timeout: 60000 });
		const ready = await p.evaluate(() => window.stacktopReady);
		const state = await p.evaluate(() => window.stacktopFlame.state());
		const canvas = await p.$('#flame');
		const W = state.width;
		Object.assign(summary, { ready_ms: Math.round(ready), nodes: state.nodes, names: state.names,
			width: W, file_bytes: fs.statSync(page).size });

		// the screenshot is not blank: pixel variance of the graph
		const shot = async (name) => {
			// the pointer off the graph: no tooltip over the frames
			await p.mouse.move(1, 1);
			check(await p.$eval('#tip', (t) => t.hidden), 'the tooltip stays after the pointer left');
			const png = await canvas.screenshot({ path: path.join(outdir, name + '.png') });
			return decode(browser, Buffer.from(png));
		};
		let px = await shot('open');
		{
			const n = px.w * px.h;
			let s = 0, s2 = 0;
			const colours = new Set();
			for (let k = 0; k < n; k++) {
				const v = (px.d[4 * k] + px.d[4 * k + 1] + px.d[4 * k + 2]) / 3;
				s += v;
				s2 += v * v;
				if (k % 7 === 0)
					colours.add(px.d[4 * k] << 16 | px.d[4 * k + 1] << 8 | px.d[4 * k + 2]);
			}
			const variance = s2 / n - (s / n) * (s / n);
			summary.variance = Math.round(variance);
			summary.colours = colours.size;
			check(variance > 100 && colours.size >= 3,
				'the graph looks blank (pixel variance ' + variance.toFixed(1) + ', ' + colours.size + ' colours)');
		}
		const bg = px.at(W - 1, px.h - 1);
		let frames = await p.evaluate(() => window.stacktopFlame.frames());
		check(frames.length > 1, 'no frames drawn');
		check(frames[0].name === 'all' && frames[0].x === 0 && Math.abs(frames[0].w + 1 - W) <= 1,
			'the root frame is not the full width');
		summary.frames = frames.length;

		if (cmd === 'open') {
			// what interactions cost on this page, in the page's own clock
			summary.interact_ms = await p.evaluate(() => {
				const c = document.getElementById('flame');
				const r = c.getBoundingClientRect();
				const f = window.stacktopFlame.frames().filter((g) => g.path.length === 2)
					.sort((a, b) => b.w - a.w)[0];
				const at = (type, g) => c.dispatchEvent(new MouseEvent(type, { bubbles: true,
					clientX: r.left + g.x + g.w / 2, clientY: r.top + g.y + g.h / 2 }));
				const time = (fn) => {
					const t = performance.now();
					fn();
					return Math.round((performance.now() - t) * 10) / 10;
				};
				const out = {};
				out.hover = time(() => at('mousemove', f));
				out.zoom = time(() => at('click', f));
				out.reset = time(() => document.getElementById('reset').click());
				document.getElementById('search').value = 'func_00';
				out.search = time(() => document.getElementById('case').click());
				out.regex = time(() => document.getElementById('regex').click());
				out.matched = document.getElementById('matched').textContent;
				document.getElementById('regex').click();
				document.getElementById('search').value = '';
				document.getElementById('case').click();
				// the derived views (issue 28): each a tree built from the page's
				const $ = (id) => document.getElementById(id);
				const change = (id, v) => {
					$(id).value = v;
					$(id).dispatchEvent(new Event('change'));
				};
				if (!$('leafrooted'))
					return out; // a page without the views of issue 28
				out.inverted = time(() => $('leafrooted').click());
				$('leafrooted').click();
				out.sandwich = time(() => change('view', 'sandwich'));
				const row = document.querySelector('#fns tbody tr');
				out.sandwich_fn = time(() => row && row.click());
				change('view', 'flame');
				const ev = $('f-event').options[1];
				out.filter = ev ? time(() => change('f-event', ev.value)) : null;
				change('f-event', '-1');
				return out;
			});
		}
		if (cmd === 'views')
			await viewsCheck(p, outdir, summary);
		if (cmd === 'check') {
			// the expected tree, from the folded stacks; without them (a live
			// run) the page's own counts, so that the pixels are still checked
			const tree = new Map();
			let total = 0;
			// what the widths count: hits, or the weight (--offcpu, --weight)
			const val = (f) => (state.measure === 'hits' ? f.hits : f.weight);
			if (expect.stacks) {
				for (const [stack, count] of expect.stacks) {
					total += count;
					for (let d = 1; d <= stack.length; d++) {
						const key = JSON.stringify(stack.slice(0, d));
						tree.set(key, (tree.get(key) || 0) + count);
					}
				}
			} else {
				total = state.total;
				for (const f of frames)
					if (f.node !== 0)
						tree.set(JSON.stringify(f.path), val(f));
			}
			tree.set('[]', total);
			const countOf = (fpath) => tree.get(JSON.stringify(fpath));
			check(Math.abs(state.total - total) < 1e-9, 'the graph holds ' + state.total + ', the stacks ' + total);

			// widths proportional to the counts, within a pixel: in the
			// page's model and in the pixels painted
			const widths = (fs, zoomPath, zoomCount, shotPx) => {
				let checked = 0;
				for (const f of fs) {
					if (f.kind === 'tracing')
						fail('a tracing frame is shown by default: ' + fname(f));
					const inZoom = f.path.length >= zoomPath.length &&
						zoomPath.every((n, k) => f.path[k] === n);
					if (!inZoom)
						continue;
					// a live run: frames too narrow to be drawn before the zoom
					const c = expect.stacks ? countOf(f.path) : val(f);
					check(c !== undefined, 'frame ' + JSON.stringify(f.path) + ' is in no stack');
					const want = c / zoomCount * W;
					if (want < 4)
						continue;
					const gap = f.w + 1;
					check(Math.abs(gap - want) <= 1, 'frame ' + fname(f) + ' is ' + gap +
						' px wide, its count says ' + want.toFixed(2));
					// the pixels: the frame's colour from its left edge to the gap
					// before the next frame (a neighbour of the same colour
					// only hides the edge it shares)
					const col = shotPx.at(f.x + 1, f.y + 1);
					let a = f.x + 1, b = f.x + 1;
					while (a > 0 && same(shotPx.at(a - 1, f.y + 1), col))
						a--;
					while (b < shotPx.w - 1 && same(shotPx.at(b + 1, f.y + 1), col))
						b++;
					const other = (xx) => fs.some((g) => g !== f && g.y === f.y && xx >= g.x && xx < g.x + g.w);
					check(same(shotPx.at(b + 1, f.y + 1), bg) || other(b + 1),
						'frame ' + fname(f) + ' has no gap after it');
					if (a !== f.x)
						check(a < f.x && other(a), 'frame ' + fname(f) + ' is painted from ' + a + ', not ' + f.x);
					if (b !== f.x + f.w - 1)
						check(b > f.x + f.w - 1 && other(b), 'frame ' + fname(f) + ' is painted to ' + b +
							', not ' + (f.x + f.w - 1));
					check(Math.abs(b - a + 2 - want) <= 1 || (a !== f.x || b !== f.x + f.w - 1),
						'frame ' + fname(f) + ' is painted ' + (b - a + 1) + ' px wide, its count says ' +
						want.toFixed(2));
					checked++;
				}
				return checked;
			};
			summary.widths_checked = widths(frames, [], total, px);
			// a filter by event: the graph holds that event's hits (a large
			// page's records are compressed and read after the first draw)
			if (expect.filter_event) {
				const fe = expect.filter_event;
				await p.select('#f-event', String(fe.value));
				await p.waitForFunction((w) => window.stacktopFlame.state().total === w,
					{ timeout: 20000 }, fe.total).catch(() => {});
				const got = (await p.evaluate(() => window.stacktopFlame.state())).total;
				check(got === fe.total, 'filtered by event ' + fe.value + ' the graph holds ' + got +
					', the records ' + fe.total);
				await p.select('#f-event', '-1');
				summary.filter_event = got;
			}
			// every frame of the stacks that is wide enough is there
			for (const [key, c] of tree) {
				if (key === '[]' || c / total * W < 2)
					continue;
				const fp = JSON.parse(key);
				check(frames.some((f) => JSON.stringify(f.path) === key), 'frame ' + fp.join(';') + ' is missing');
			}

			// kinds and colours
			for (const [name, kind] of Object.entries(expect.kinds || {})) {
				const f = frames.find((g) => g.name === name);
				check(f, 'no frame ' + name);
				check(f.kind === kind, name + ' is a ' + f.kind + ' frame, not ' + kind);
			}
			for (const [a, b] of expect.apart || []) {
				const fa = frames.find((g) => g.name === a), fb = frames.find((g) => g.name === b);
				check(fa && fb, 'no frame ' + a + ' or ' + b);
				const ha = hue(px.at(fa.x + 2, fa.y + 1)), hb = hue(px.at(fb.x + 2, fb.y + 1));
				check(Math.abs(ha - hb) >= 10 && Math.abs(ha - hb) <= 350 || (ha < 0) !== (hb < 0),
					a + ' and ' + b + ' are coloured alike (hue ' + ha.toFixed(0) + ', ' + hb.toFixed(0) + ')');
			}

			// hover: the tooltip names the frame, its hits and share
			const pick = frames.filter((f) => f.node !== 0 && f.w > 40 && f.path.length > 1)
				.sort((x, y) => y.path.length - x.path.length || y.w - x.w)[0] ||
				frames.filter((f) => f.node !== 0)[0];
			// a frame's centre in the viewport, scrolled into it first: a deep
			// graph is taller than the viewport (800 px), and canvas.screenshot()
			// scrolls the page, so the canvas's box read at the start is stale
			// (a frame 50 deep drew at y 900: the pointer missed the canvas and
			// no tooltip showed, on a busy host whose stacks were deeper)
			const centre = async (f) => {
				await p.evaluate((fy) => {
					const r = document.getElementById('flame').getBoundingClientRect();
					const y = r.top + fy;
					if (y < 8 || y > window.innerHeight - 8)
						window.scrollBy(0, y - window.innerHeight / 2);
				}, f.y + f.h / 2);
				const b = await canvas.boundingBox();
				const at = [b.x + f.x + f.w / 2, b.y + f.y + f.h / 2];
				check(at[1] >= 0 && at[1] < 800, 'frame ' + fname(f) + ' at y ' + at[1] + ' is off the viewport');
				return at;
			};
			await p.mouse.move(...(await centre(pick)));
			let tipText = await p.$eval('#tip', (t) => (t.hidden ? '' : t.textContent));
			const c0 = countOf(pick.path);
			check(tipText.startsWith(pick.name + '\n'), 'tooltip does not start with the name: ' + JSON.stringify(tipText));
			const share = 100 * c0 / total;
			let m;
			if (state.measure === 'hits') {
				check(tipText.includes('hits: ' + c0.toLocaleString('en-US') + ', '),
					'tooltip has not the hits ' + c0 + ': ' + JSON.stringify(tipText));
				m = /hits: [0-9,]+, ([0-9.]+)% of all/.exec(tipText);
			} else {
				// the weight's line, in its unit: "off-CPU: 1.86 s, 11.7% of all"
				m = new RegExp('\n' + state.measure + ': [0-9.,]+ [^,]*, ([0-9.]+)% of all').exec(tipText);
			}
			check(m && Math.abs(parseFloat(m[1]) - share) < 0.1 * Math.max(1, share / 10),
				'tooltip share is not ' + share.toFixed(2) + '%: ' + JSON.stringify(tipText));
			summary.tooltip = tipText;

			// click zooms: the clicked frame becomes the full width, its callees
			// proportional to their counts within it
			const zf = frames.filter((f) => f.node !== 0 && f.w < W - 10 && f.w > 20)
				.sort((x, y) => y.w - x.w)[0];
			if (zf) {
				await p.mouse.click(...(await centre(zf)));
				const st = await p.evaluate(() => window.stacktopFlame.state());
				check(st.zoomName === zf.name, 'click on ' + zf.name + ' zoomed to ' + st.zoomName);
				const zframes = await p.evaluate(() => window.stacktopFlame.frames());
				const z = zframes.find((f) => JSON.stringify(f.path) === JSON.stringify(zf.path));
				check(z && z.x === 0 && Math.abs(z.w + 1 - W) <= 1, 'the zoomed frame is not the full width');
				const zpx = await shot('zoomed');
				const r = run(zpx, W / 2, z.y + 1, bg);
				check(r && r[0] === 0 && r[1] >= W - 2, 'the zoomed frame is not painted the full width: ' + r);
				summary.zoom_widths_checked = widths(zframes, zf.path, countOf(zf.path), zpx);
				// a callee's tooltip gives its share of the zoomed frame
				const callee = zframes.find((f) => f.path.length === zf.path.length + 1 && f.w > 20);
				if (callee) {
					await p.mouse.move(...(await centre(callee)));
					tipText = await p.$eval('#tip', (t) => (t.hidden ? '' : t.textContent));
					check(tipText.includes(' of ' + zf.name), 'no share of the zoomed frame in ' + JSON.stringify(tipText));
				}
				// the reset
				await p.click('#reset');
				const rs = await p.evaluate(() => window.stacktopFlame.state());
				check(rs.zoom === 0, 'reset did not unzoom');
				const back = (await p.evaluate(() => window.stacktopFlame.frames()))
					.find((f) => JSON.stringify(f.path) === JSON.stringify(zf.path));
				check(back && Math.abs(back.w - zf.w) < 0.01 && Math.abs(back.x - zf.x) < 0.01,
					'after the reset ' + zf.name + ' is not where it was');
				summary.zoomed = fname(zf);
			}

			// search: highlights the matches, reports their summed share
			for (const s of expect.search || []) {
				await p.evaluate((re) => {
					const r = document.getElementById('regex');
					if (r.checked !== re)
						r.click();
				}, !!s.regex);
				await p.click('#search', { clickCount: 3 });
				await p.keyboard.press('Backspace');
				await p.type('#search', s.q);
				await p.waitForFunction('document.getElementById("matched").textContent !== ""', { timeout: 5000 });
				await new Promise((res) => setTimeout(res, 300));
				const text = await p.$eval('#matched', (e) => e.textContent);
				if (s.share === 0) {
					check(text === 'no match', 'search ' + s.q + ' matched: ' + JSON.stringify(text));
					continue;
				}
				const mm = /matched: ([0-9.]+)% of all/.exec(text);
				check(mm, 'search ' + s.q + ': no share reported: ' + JSON.stringify(text));
				check(Math.abs(parseFloat(mm[1]) - 100 * s.share) <= 0.1 * Math.max(1, s.share * 10),
					'search ' + s.q + ' reports ' + mm[1] + '%, the stacks say ' + (100 * s.share).toFixed(2) + '%');
				const sf = await p.evaluate(() => window.stacktopFlame.frames());
				const spx = await shot('search');
				let lit = 0;
				const re = s.regex ? new RegExp(s.q, 'i') : null;
				for (const f of sf) {
					if (f.node === 0 || f.w < 4)
						continue;
					// a frame matches by its name or its module/file
					const test = (t) => (re ? re.test(t) : t.toLowerCase().includes(s.q.toLowerCase()));
					const want = test(f.name) || (f.where !== '' && test(f.where));
					check(f.match === want, 'search ' + s.q + ': ' + f.name + (want ? ' not' : '') + ' highlighted');
					const c = spx.at(f.x + 1, f.y + 1);
					check(same(c, [230, 0, 230]) === want, 'search ' + s.q + ': ' + f.name +
						' painted ' + c + (want ? ', not' : ', as') + ' a match');
					lit += want;
				}
				check(lit > 0 || s.share === 0, 'search ' + s.q + ': nothing highlighted');
			}
			// Esc in the search box clears it
			if ((expect.search || []).length) {
				await p.focus('#search');
				await p.keyboard.press('Escape');
				const t = await p.$eval('#matched', (e) => e.textContent);
				check(t === '', 'Esc did not clear the search');
			}

			// the keyboard alone: / focuses the search; on the graph, Down
			// twice reaches the heaviest root frame, Enter zooms into it, Esc resets
			await p.focus('#flame');
			await p.keyboard.press('/');
			check(await p.evaluate(() => document.activeElement.id === 'search'), '/ does not focus the search');
			await p.keyboard.press('Escape');
			await p.focus('#flame');
			await p.keyboard.press('ArrowDown');
			await p.keyboard.press('ArrowDown');
			const heavy = frames.filter((f) => f.path.length === 1).sort((x, y) => val(y) - val(x))[0];
			const st1 = await p.evaluate(() => window.stacktopFlame.state());
			check(heavy && st1.cursor >= 0, 'the arrows do not move a cursor');
			const status = await p.$eval('#status', (e) => e.textContent);
			check(status.startsWith(heavy.name + ' - '), 'the status line does not name ' + heavy.name + ': ' + status);
			await p.keyboard.press('Enter');
			const st2 = await p.evaluate(() => window.stacktopFlame.state());
			check(st2.zoomName === heavy.name, 'Enter zoomed to ' + st2.zoomName + ', not ' + heavy.name);
			await p.keyboard.press('Escape');
			const st3 = await p.evaluate(() => window.stacktopFlame.state());
			check(st3.zoom === 0, 'Esc did not reset the zoom');

			// left-heavy (l): every frame's callees heaviest first, the order in the URL
			const lh = await p.evaluate(() => {
				document.getElementById('flame').focus();
				document.dispatchEvent(new KeyboardEvent('keydown', { key: 'l' }));
				const fr = window.stacktopFlame.frames();
				const st = window.stacktopFlame.state();
				const bad = [];
				const byParent = new Map();
				for (const f of fr) {
					if (f.path.length < 1)
						continue;
					const key = JSON.stringify(f.path.slice(0, -1));
					if (!byParent.has(key))
						byParent.set(key, []);
					byParent.get(key).push(f);
				}
				for (const sibs of byParent.values()) {
					sibs.sort((a, b) => a.x - b.x);
					for (let k = 1; k < sibs.length; k++)
						if (sibs[k].hits > sibs[k - 1].hits && sibs[k].weight === null)
							bad.push(sibs[k - 1].name + ' before ' + sibs[k].name);
				}
				const hash = location.hash;
				document.dispatchEvent(new KeyboardEvent('keydown', { key: 'l' }));
				return { on: st.leftHeavy, off: window.stacktopFlame.state().leftHeavy, bad, hash,
					after: location.hash };
			});
			check(lh.on && !lh.off, 'l does not toggle left-heavy');
			check(!lh.bad.length, 'left-heavy: a lighter frame left of a heavier one: ' + lh.bad.slice(0, 3));
			check(lh.hash === '#left-heavy' && lh.after === '', 'left-heavy not kept in the URL: ' +
				JSON.stringify([lh.hash, lh.after]));

			// the tracing machinery: hidden, then shown by t
			const nt = await p.evaluate(() => {
				const before = window.stacktopFlame.frames().filter((f) => f.kind === 'tracing').length;
				document.getElementById('flame').focus();
				document.dispatchEvent(new KeyboardEvent('keydown', { key: 't' }));
				const after = window.stacktopFlame.frames().filter((f) => f.kind === 'tracing').length;
				document.dispatchEvent(new KeyboardEvent('keydown', { key: 't' }));
				return [before, after];
			});
			check(nt[0] === 0, 'tracing frames shown by default');
			if (expect.tracing)
				check(nt[1] > 0, 't does not show the tracing frames');
			summary.tracing_frames = nt[1];

			// escaping: the names are shown as they are, nothing was injected
			for (const lit of expect.literal || []) {
				const f = frames.find((g) => g.name === lit);
				check(f, 'no frame named ' + JSON.stringify(lit));
				await p.mouse.move(...(await centre(f)));
				const tt = await p.$eval('#tip', (t) => (t.hidden ? '' : t.textContent));
				check(tt.startsWith(lit + '\n'), 'the tooltip does not show ' + JSON.stringify(lit));
			}
			for (const t of expect.header || []) {
				const h = await p.$eval('header', (e) => e.textContent);
				check(h.includes(t), 'the header does not say ' + JSON.stringify(t) + ': ' + JSON.stringify(h));
			}
			const dom = await p.evaluate(() => ({
				scripts: document.scripts.length,
				img: document.querySelectorAll('img, iframe, object, embed, svg').length,
				bodyKids: Array.from(document.body.children).map((e) => e.tagName).join(','),
				injected: typeof window.stacktopInjected,
				// the data elements (the profile and the records' splits, as JSON,
				// or compressed when large: issue 28), data, not script; one script
				data: document.querySelectorAll('script#stacktop-data[type="application/json"],' +
					'script#stacktop-data-gzip[type="application/octet-stream"],' +
					'script#stacktop-data-cols[type="application/octet-stream"],' +
					'script#stacktop-splits[type="application/json"],' +
					'script#stacktop-splits-gzip[type="application/octet-stream"],' +
					'script#stacktop-splits-cols[type="application/octet-stream"]').length,
				code: Array.from(document.scripts).filter((e) => !e.id && !e.type).length,
			}));
			summary.kinds = Array.from(new Set(frames.map((f) => f.kind))).sort();
			check(dom.scripts === dom.code + dom.data && dom.code === 1 && dom.data <= 4 && dom.img === 0 &&
				dom.injected === 'undefined' && /^HEADER,MAIN,FOOTER,(SCRIPT,){1,4}SCRIPT$/.test(dom.bodyKids),
				'the page has other elements than its own: ' + JSON.stringify(dom));
		}
		check(requests.length === 0, 'requests left the page: ' + requests.join(' '));
		check(problems.length === 0, problems.join('; '));
		summary.requests = 0;
	} finally {
		await browser.close();
	}
	console.log(JSON.stringify(summary));
}

main().catch((e) => fail(e.stack || String(e)));
