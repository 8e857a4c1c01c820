// SPDX-License-Identifier: GPL-2.0-or-later
// fixture.js - the flame page's profiles as the node tests read them: the
// known workloads (tests/fixtures/flame/gen-known.py, gen-diff.py) and a
// large one written here, made into pages by stacktop itself ($STACKTOP,
// meson's build) and read back from the page's elements by the page's own
// decode.js, as the browser does.
'use strict';

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const SRC = process.env.SRCDIR || path.join(__dirname, '..', '..');
const FLAME = path.join(SRC, 'src', 'output', 'flame');
const STACKTOP = process.env.STACKTOP;
if (!STACKTOP)
	throw new Error('STACKTOP (the stacktop binary, meson test gives it) is not set');

const decode = require(path.join(FLAME, 'decode.js'));
const tree = require(path.join(FLAME, 'tree.js'));

let dir = null;
function tmp(name) {
	if (!dir) {
		dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stacktop-flamejs-'));
		process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
	}
	return path.join(dir, name);
}

// the elements of a page written by stacktop, by id: what the page's
// lookup finds (its <script id=...> elements, their text as the HTML
// parser gives it: a script's text is raw)
function elements(html) {
	const els = new Map();
	for (const m of html.matchAll(/<script id="([^"]+)"[^>]*>([\s\S]*?)<\/script>/g))
		els.set(m[1], { textContent: m[2] });
	return (id) => els.get(id) || null;
}

// a page's profile: the document, the profile, the base tree shaped, the
// records, and BEFORE on a differential page
async function page(html) {
	const lookup = elements(html);
	const data = await decode.readDoc('stacktop-data', lookup);
	decode.checkProfile(data);
	const P = decode.profileOf(data);
	decode.checkNames(P.names);
	const base = tree.shape(decode.readNodes(data, data.cols, '', data.stride, P.NN), P);
	const sp = lookup('stacktop-splits-cols') || lookup('stacktop-splits-gzip') ?
		await decode.readDoc('stacktop-splits', lookup) :
		lookup('stacktop-splits') ? JSON.parse(lookup('stacktop-splits').textContent) : null;
	const splits = decode.splitsFrom(sp, P.weighted);
	return { html, lookup, data, P, base, splits };
}

function run(args) {
	return execFileSync(STACKTOP, args, { stdio: ['ignore', 'pipe', 'pipe'] });
}

const made = {};
// the known workload of gen-known.py (155 hits):
//   main;a;b;c 40   (sched_switch alpha/10 cpu0 30, kmalloc beta/20 cpu1 10)
//   main;a;c   30   (kmalloc beta/20 cpu1)
//   main;d     75   (sched_switch alpha/10 cpu1)
//   main;r;r;c 10   (kmalloc beta/20 cpu0): r is recursive
async function known() {
	if (!made.known) {
		const json = tmp('known.json'), out = tmp('known.html');
		execFileSync('python3', [path.join(SRC, 'tests', 'fixtures', 'flame', 'gen-known.py'), json]);
		run(['-r', json, '-o', out]);
		made.known = fs.readFileSync(out, 'utf8');
	}
	return page(made.known);
}

// the differential pair of gen-diff.py: BEFORE X 20, Y 40, Z 30, W 10;
// AFTER X 80, Y 40, Z 60, V 20
async function diffPair() {
	if (!made.diff) {
		const b = tmp('before.json'), a = tmp('after.json'), out = tmp('d.html');
		execFileSync('python3', [path.join(SRC, 'tests', 'fixtures', 'flame', 'gen-diff.py'), b, a]);
		run(['--diff', b, a, '-o', out]);
		made.diff = fs.readFileSync(out, 'utf8');
	}
	return page(made.diff);
}

// a profile large enough to be written as compressed columns: @n stacks
// main;fn_K;leaf_K_J, K < 200, hits 1 + (K * 7 + J) % 13 each
function bigSnapshot(n) {
	const stacks = [];
	let hits = 0;
	for (let s = 0; s < n; s++) {
		const k = s % 200, j = Math.floor(s / 200), c = 1 + (k * 7 + j) % 13;
		const fr = ['leaf_' + k + '_' + j + '_with_a_long_name_to_fill_the_page', 'fn_' + k, 'main'];
		hits += c;
		stacks.push({ key: (s + 1).toString(16).padStart(16, '0'), total: c, delta: c, depth: 3,
			ids: [], more_ids: false, fallback: false, mapped: false, merged64: false, cut: false,
			frames: fr.map((f, i) => '0x' + (0xffffffff81000000n + BigInt(s * 0x100 + i * 0x10)).toString(16)),
			symbols: fr.map((f) => f + '+0x0/0x100'),
			by: [{ event: 'sched:sched_switch', cpu: s % 2, pid: 100 + (s % 3), comm: 'w' + (s % 3),
				total: c, delta: c }] });
	}
	return { schema: 'stacktop-snapshot', version: 2, stacktop: '0.1.0', timestamp: 1.0,
		time: '1970-01-01T00:00:01.000Z', host: 'big', kernel: '6.18.0', source: '/sys/kernel/tracing',
		iteration: 1, mode: 'stacks', interval: 1.0, events: ['sched:sched_switch'],
		traced: 'sched:sched_switch',
		view: { sort: 'hits', ascending: false, counts: 'total', event: null, pid: null, cpu: null,
			filter: null, hide_idle: false, top: 0 },
		stacks, hits, hits_delta: hits, lost: 0, overrun: 0, dropped: 0, orphans: 0, bad_pages: 0,
		fallbacks: 0, unresolved: 0, expect: null };
}
async function big() {
	if (!made.big) {
		const json = tmp('big.json'), out = tmp('big.html');
		fs.writeFileSync(json, JSON.stringify(bigSnapshot(6000)));
		run(['-r', json, '-o', out]);
		made.big = fs.readFileSync(out, 'utf8');
	}
	return page(made.big);
}

// the node of a path of labels from the root, -1 for none
function nodeOf(P, t, names) {
	let n = 0;
	for (const want of names) {
		let found = -1;
		for (let k = t.cstart[n]; k < t.cstart[n + 1]; k++)
			if (tree.label(P, t, t.kids[k]) === want)
				found = t.kids[k];
		if (found < 0)
			return -1;
		n = found;
	}
	return n;
}

// a tree as "path hits" lines, each node's total, in preorder
function dump(P, t, byWeight = false) {
	const tot = tree.totals(t, byWeight), out = [];
	const st = [0];
	while (st.length) {
		const n = st.pop();
		if (n > 0)
			out.push(tree.pathOf(P, t, n).join(';') + ' ' + tot[n]);
		for (let k = t.cstart[n + 1] - 1; k >= t.cstart[n]; k--)
			st.push(t.kids[k]);
	}
	return out;
}

module.exports = { FLAME, known, diffPair, big, nodeOf, dump, elements };
