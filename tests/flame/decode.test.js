// SPDX-License-Identifier: GPL-2.0-or-later
// decode.test.js - the page's profile read back (decode.js) from pages
// stacktop wrote: the known workload's names and tree, its records, a
// large page's compressed columns, and damaged input refused.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { FLAME, known, big, dump, elements } = require('./fixture.js');
const decode = require(path.join(FLAME, 'decode.js'));

test('the known page: names, tree and totals', async () => {
	const { P, base, data } = await known();
	assert.equal(data.format, 'stacktop-flame');
	assert.deepEqual(P.names.map((n) => n[0]).sort(), ['a', 'b', 'c', 'd', 'main', 'r']);
	assert.equal(P.weighted, false);
	assert.equal(base.totH[0], 155);
	assert.deepEqual(dump(P, base), [
		'main 155', 'main;a 70', 'main;a;b 40', 'main;a;b;c 40', 'main;a;c 30', 'main;d 75',
		'main;r 10', 'main;r;r 10', 'main;r;r;c 10']);
	assert.deepEqual(P.evNames, ['sched:sched_switch', 'kmem:kmalloc']);
});

test('the known page: the records, by event, pid and CPU', async () => {
	const { P, splits, base } = await known();
	let sum = 0;
	const byEvent = [0, 0];
	for (let k = 0; k < splits.n; k++) {
		sum += splits.h[k];
		byEvent[P.attrs[3 * splits.attr[k]]] += splits.h[k];
		assert.ok(splits.node[k] < base.N);
	}
	assert.equal(sum, 155);
	assert.deepEqual(byEvent, [105, 50]);
	assert.equal(P.comms.get(10), 'alpha');
	assert.equal(P.comms.get(20), 'beta');
});

test('a large page: compressed columns, the same sums as its records', async () => {
	const { P, base, splits, lookup } = await big();
	assert.ok(lookup('stacktop-data-cols'), 'the large page is written as columns');
	assert.ok(!lookup('stacktop-data') || !lookup('stacktop-data').textContent.trim());
	assert.equal(P.NN, 6000 + 200 + 1);
	let sum = 0;
	for (let k = 0; k < splits.n; k++)
		sum += splits.h[k];
	assert.equal(base.totH[0], sum);
	// each fn_K's total is its 30 leaves'
	let fn = 0;
	for (let k = base.cstart[1]; k < base.cstart[2]; k++)
		fn += base.totH[base.kids[k]];
	assert.equal(fn, base.totH[1]);
});

test('damaged input is refused, with what is wrong', async () => {
	await assert.rejects(decode.readDoc('x', elements('<script id="x-gzip">bm90IGd6aXA=</script>')),
		/compressed data is damaged/);
	assert.throws(() => decode.checkProfile({ format: 'other', names: [] }), /not a stacktop flame graph/);
	assert.throws(() => decode.checkNames([['a', 9]]), /name 0/);
	// a node deeper than its predecessor allows
	assert.throws(() => decode.readNodes({ nodes: [0, -1, 0, 2, 0, 1] }, null, '', 3, 1), /node 1/);
	assert.throws(() => decode.readNodes({ nodes: [0, -1, 0, 1, 5, 1] }, null, '', 3, 1),
		/the name of node 1/);
	const { html } = await big();
	// cut short: the columns end before their header says
	const cut = html.replace(/(<script id="stacktop-data-cols"[^>]*>)([\s\S]*?)(<\/script>)/,
		(m, a, b, c) => a + b.slice(0, Math.floor(b.length / 2) & ~3) + c);
	await assert.rejects(decode.readDoc('stacktop-data', elements(cut)), /damaged|cut short/);
});
