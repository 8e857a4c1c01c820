// SPDX-License-Identifier: GPL-2.0-or-later
// flame-diff.js: the differential flame graph page (stacktop --diff BEFORE
// AFTER -o d.html, built by tests/flame-diff.sh from a constructed pair) in
// Debian's chromium, headless, driven by puppeteer-core: what a user sees.
//
//   node flame-diff.js MODULES CHROMIUM PAGE.html OUTDIR
//   node flame-diff.js MODULES CHROMIUM PAGE.html OUTDIR BEFORE.folded AFTER.folded [any]
//            a large pair (both trees as binary columns, or a small AFTER
//            against a large BEFORE: gzip'd JSON; any: a small pair, plain
//            JSON too): every frame drawn has BEFORE's and AFTER's hits of
//            its path, as the folded outputs of the two sides add them up
//
// The pair: BEFORE X 20, Y 40, Z 30, W 10 (of 100); AFTER X 80, Y 40, Z 60,
// V 20 (of 200): X's share doubled (20% -> 40%: red), Y's halved (40% ->
// 20%: blue), Z's stayed (30%: neutral), W gone (listed), V new. Checks the colours' hues, each
// frame's counts on both sides, the tooltip, the gone list, that a
// transform turns the colours off, and takes a screenshot.
'use strict';
const path = require('path');

const [modules, chromium, page, outdir, beforeFolded, afterFolded, anyForm] = process.argv.slice(2);
const fs = require('fs');
const puppeteer = require(path.join(modules, 'puppeteer-core'));

function fail(msg) {
	console.error('FAIL: ' + msg);
	process.exit(1);
}
function check(ok, msg) {
	if (!ok)
		fail(msg);
}
// 'hsl(H,S%,L%)' -> [H, S, L]
function hsl(c) {
	const m = /^hsl\(([\d.]+),([\d.]+)%,([\d.]+)%\)$/.exec(c);
	check(m, 'not an hsl colour: ' + c);
	return m.slice(1).map(Number);
}

// each path's hits, its callees' included, from a folded file
function prefixSums(file) {
	const sums = new Map();
	let total = 0;
	for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
		const m = /^(.*) (\d+)$/.exec(line);
		if (!m)
			continue;
		// (the folded output's annotations off: _[k] kernel, _[j] user)
		const n = Number(m[2]), fr = m[1].split(';').map((f) => f.replace(/_\[[a-z]\]$/, ''));
		total += n;
		for (let k = 1; k <= fr.length; k++) {
			const key = fr.slice(0, k).join(';');
			sums.set(key, (sums.get(key) || 0) + n);
		}
	}
	return { sums, total };
}

async function large(p, d) {
	const b = prefixSums(beforeFolded), a = prefixSums(afterFolded);
	// columns (a large AFTER), or gzip'd JSON (a small AFTER, a large BEFORE)
	const form = await p.evaluate(() => (document.getElementById('stacktop-data-cols') ? 'cols'
		: document.getElementById('stacktop-data-gzip') ? 'gzip' : 'json'));
	check(anyForm === 'any' || form !== 'json', 'the large pair is written as plain JSON');
	check(d.total === b.total, 'BEFORE total ' + d.total + ', its folded output ' + b.total);
	const frames = await p.evaluate(() => window.stacktopFlame.frames());
	check(frames.length === d.frames.length && frames.length > (form === 'cols' ? 1000 : 2),
		'frames drawn: ' + frames.length + ' / ' + d.frames.length);
	let grew = 0, shrank = 0;
	for (let k = 1; k < frames.length; k++) {
		// (folded lines carry no spaces: "[user space]" is "[user_space]" there)
		const key = frames[k].path.map((x) => x.replace(/ /g, '_')).join(';'), f = d.frames[k];
		const want = b.sums.get(key) || 0, hits = a.sums.get(key) || 0;
		check(f.name === frames[k].name && f.hits === hits && f.before === want,
			key + ': hits ' + f.hits + ' before ' + f.before + ', the folded outputs say ' + hits + ' and ' + want);
		const ch = 100 * (hits / a.total - want / b.total);
		check(Math.abs(f.change - ch) < 1e-6, key + ': change ' + f.change + ', wanted ' + ch);
		if (ch > 1e-9 && /^hsl\(0,/.test(f.colour))
			grew++;
		if (ch < -1e-9 && /^hsl\(220,/.test(f.colour))
			shrank++;
	}
	// (a small AFTER of other functions: all its frames grew, BEFORE's are gone)
	check(grew > 0 && (shrank > 0 || (form === 'gzip' && d.gone.length > 0)),
		'no red or no blue frame: ' + grew + ' / ' + shrank + ', ' + d.gone.length + ' gone');
	await p.screenshot({ path: path.join(outdir, 'diff-' + form + '.png') });
	console.log(JSON.stringify({ form, frames: frames.length, before: b.total, after: a.total, grew, shrank,
		gone: d.gone.length }));
}

async function main() {
	const browser = await puppeteer.launch({
		executablePath: chromium,
		headless: true,
		args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
			'--user-data-dir=' + path.join(outdir, 'chromium-profile')],
	});
	const problems = [];
	try {
		const p = await browser.newPage();
		await p.setViewport({ width: 1200, height: 700, deviceScaleFactor: 1 });
		p.on('pageerror', (e) => problems.push('page error: ' + e.message));
		await p.goto('file://' + path.resolve(page));
		await p.waitForFunction(() => window.stacktopReady !== undefined, { timeout: 20000 });
		const d = await p.evaluate(() => window.stacktopFlame.diff());
		check(d && d.on, 'the page is not differential: ' + JSON.stringify(d));
		if (beforeFolded) {
			await large(p, d);
			check(!problems.length, problems.join('; '));
			return;
		}
		check(d.total === 100, 'BEFORE total ' + d.total + ', wanted 100');
		const by = {};
		for (const f of d.frames)
			by[f.name] = f;
		for (const n of ['leaf_X', 'leaf_Y', 'leaf_Z', 'leaf_V'])
			check(by[n], 'no frame ' + n + ' in ' + Object.keys(by).join(' '));
		const want = { leaf_X: [80, 20, 20], leaf_Y: [40, 40, -20], leaf_Z: [60, 30, 0],
			leaf_V: [20, 0, 10] };
		for (const [n, [hits, b, ch]] of Object.entries(want)) {
			const f = by[n];
			check(f.hits === hits && f.before === b && Math.abs(f.change - ch) < 1e-6,
				n + ': ' + JSON.stringify(f) + ', wanted hits ' + hits + ', before ' + b + ', change ' + ch);
		}
		const [hx, sx, lx] = hsl(by.leaf_X.colour), [hy, , ly] = hsl(by.leaf_Y.colour);
		const [, sz, lz] = hsl(by.leaf_Z.colour);
		check(hx === 0 && sx > 50 && lx < 80, 'a doubled share is not red: ' + by.leaf_X.colour);
		check(hy === 220 && ly < 80, 'a halved share is not blue: ' + by.leaf_Y.colour);
		check(sz === 0 && lz > 90, 'an unchanged share is not neutral: ' + by.leaf_Z.colour);
		check(d.gone.length === 1 && d.gone[0].path.join(' < ') === 'caller_W' && d.gone[0].hits === 10,
			'the gone list: ' + JSON.stringify(d.gone));
		const notes = await p.evaluate(() => document.getElementById('notes').textContent);
		check(/differential: .*red grew, blue shrank/.test(notes) && /gone since then: caller_W/.test(notes),
			'the notes do not explain the colours or list the gone frames: ' + notes);
		// the tooltip: both sides and the change
		const fr = (await p.evaluate(() => window.stacktopFlame.frames())).find((f) => f.name === 'leaf_Y');
		const box = await p.evaluate(() => {
			const r = document.getElementById('flame').getBoundingClientRect();
			return { x: r.left, y: r.top };
		});
		await p.mouse.move(box.x + fr.x + fr.w / 2, box.y + fr.y + fr.h / 2);
		await p.waitForFunction(() => window.stacktopFlame.tip() !== '', { timeout: 5000 });
		const tip = await p.evaluate(() => window.stacktopFlame.tip());
		check(/before \(.*\): 40 hits, 40% of all/.test(tip) && /change of the share: -20\.00 points/.test(tip),
			'the tooltip lacks the two sides: ' + tip);
		await p.screenshot({ path: path.join(outdir, 'diff.png') });
		// a transform: the colours are the plain ones again (the paths no longer BEFORE's)
		await p.evaluate(() => window.stacktopFlame.diff());
		await p.keyboard.press('r');
		await p.evaluate(() => new Promise((r) => setTimeout(r, 300)));
		const inv = await p.evaluate(() => window.stacktopFlame.diff());
		check(inv && !inv.on, 'the inverted graph still shows the differential colours');
		check(!problems.length, problems.join('; '));
		console.log(JSON.stringify({ X: by.leaf_X, Y: by.leaf_Y, Z: by.leaf_Z, gone: d.gone }));
	} finally {
		await browser.close();
	}
}
main().catch((e) => fail(e.stack || String(e)));
