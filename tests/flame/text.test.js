// SPDX-License-Identifier: GPL-2.0-or-later
// text.test.js - the page's words (text.js), colours (colour.js) and URL
// fragment (fragment.js) on the known workload.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { FLAME, known, nodeOf } = require('./fixture.js');
const text = require(path.join(FLAME, 'text.js'));
const colour = require(path.join(FLAME, 'colour.js'));
const fragment = require(path.join(FLAME, 'fragment.js'));
const { nameId } = require(path.join(FLAME, 'tree.js'));

test('numbers, shares and amounts', () => {
	assert.equal(text.num(1234567), '1,234,567');
	assert.equal(text.num(12.6), '13');
	assert.equal(text.pct(1, 8), '12.5%');
	assert.equal(text.pct(1, 3), '33.3%');
	assert.equal(text.pct(1, 300), '0.33%');
	assert.equal(text.pct(0, 5), '0%');
	assert.equal(text.pct(5, 0), '0%');
	const ns = { weight: { unit: 'nanoseconds' } }, b = { weight: { unit: 'bytes' } };
	assert.equal(text.amount(ns, 999), '999 ns');
	assert.equal(text.amount(ns, 1500), '1.50 µs');
	assert.equal(text.amount(ns, 2.5e9), '2.50 s');
	assert.equal(text.amount(b, 1536), '1.50 KiB');
	assert.equal(text.amount({}, 1234), '1,234');
});

test('a frame described: its hits, of all and of the zoom, its self', async () => {
	const { P, base } = await known();
	const c = nodeOf(P, base, ['main', 'a', 'b', 'c']), a = nodeOf(P, base, ['main', 'a']);
	assert.deepEqual(text.describe(P, base, c, { zoom: a, showTracing: false, before: null }),
		['kernel', 'hits: 40, 25.8% of all, 57.1% of a', 'self: 40 hits, 25.8% of all']);
	assert.deepEqual(text.describe(P, base, 0, { zoom: 0, showTracing: false, before: null }),
		['every stack', 'hits: 155, 100% of all', 'self: 0 hits, 0% of all']);
});

test('the header: the run\'s facts and counts', async () => {
	const { P, base } = await known();
	const h = text.header(P, base, null, '');
	assert.equal(h.title, 'stacktop flame graph - known');
	assert.match(h.facts, /^kernel 6\.18\.0 · mode replay · events sched:sched_switch,kmem:kmalloc · recorded 1\.00 s/);
	assert.match(h.counts, /^155 hits in the graph \(since start\)/);
	assert.equal(h.tracing, false);
});

test('colours: stable by name, within the kind\'s band; pixels', async () => {
	const { P, base } = await known();
	const c = nodeOf(P, base, ['main', 'a', 'b', 'c']), c2 = nodeOf(P, base, ['main', 'a', 'c']);
	assert.deepEqual(colour.nameHsl(P, base, c), colour.nameHsl(P, base, c2));
	const [h, s, l] = colour.nameHsl(P, base, c);
	assert.ok(h >= 20 && h <= 35 && s === 82 && l >= 57 && l <= 65, 'kernel: orange');
	assert.equal(colour.hslPx(0, 100, 50), 0xff0000ff);
	assert.equal(colour.cssPx('rgb(1,2,3)', () => ''), 0xff030201);
	assert.equal(colour.cssPx('white', () => '#ffffff'), 0xffffffff);
	const col = colour.colours(P, () => '#000000');
	assert.equal(col.colour(base, c, null), 'hsl(' + h + ',' + s + '%,' + l + '%)');
	assert.equal(col.colour(base, 0, null), 'hsl(0,0%,78%)');
	assert.equal(col.namePixel(base, c), colour.hslPx(h, s, l));
});

test('the URL fragment: a view there and back', async () => {
	const { P } = await known();
	const view = { mode: 'sandwich', leafRooted: true, transforms: [{ t: 'merge', name: nameId(P, 'a') },
		{ t: 'focus', name: nameId(P, 'c') }], fn: nameId(P, 'c'), event: 1, proc: 'comm:beta', cpu: 0 };
	const f = fragment.toFragment(P, view, { leftHeavy: true, showTracing: false });
	assert.equal(f, 'view=sandwich&left-heavy&inverted&tf=merge%3Aa~focus%3Ac&fn=c&event=kmem%3Akmalloc' +
		'&proc=comm%3Abeta&cpu=0');
	assert.deepEqual(fragment.fromFragment(P, f), { view, leftHeavy: true, showTracing: false });
	assert.equal(fragment.toFragment(P, { mode: 'flame', leafRooted: false, transforms: [], fn: -1,
		event: -1, proc: '', cpu: -1 }, { leftHeavy: false, showTracing: false }), '');
	assert.equal(fragment.fromFragment(P, ''), null);
	// names the profile has not are left out
	assert.deepEqual(fragment.fromFragment(P, 'tf=merge:nosuch~focus:d&fn=nosuch&event=x').view,
		{ mode: 'flame', leafRooted: false, transforms: [{ t: 'focus', name: nameId(P, 'd') }], fn: -1,
			event: -1, proc: '', cpu: -1 });
});
