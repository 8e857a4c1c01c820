// SPDX-License-Identifier: GPL-2.0-or-later
// diff.test.js - the differential page of gen-diff.py's pair (diff.js):
// BEFORE paired by path, each frame's change of share, its colour, the
// frames gone, and when the colours are on.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { FLAME, diffPair, nodeOf } = require('./fixture.js');
const diff = require(path.join(FLAME, 'diff.js'));

// BEFORE X 20, Y 40, Z 30, W 10 (of 100); AFTER X 80, Y 40, Z 60, V 20 (of 200)
test('the change of each frame\'s share, and its colour', async () => {
	const { P, base, data } = await diffPair();
	const { before, damaged } = diff.readBefore(data, P);
	assert.equal(damaged, '');
	assert.ok(before);
	assert.equal(before.tot[0], 100);
	const row = (n) => {
		const i = nodeOf(P, base, ['caller_' + n]);
		return [diff.diffBefore(base, before, i), Number(diff.diffChange(base, before, i).toFixed(6)),
			diff.diffColour(base, before, i)];
	};
	// shares: X 20% -> 40% (+20, the largest: full red), Y 40% -> 20%
	// (-20, full blue), Z 30% both, V new at 10% (half the largest change)
	assert.deepEqual(row('X'), [20, 20, 'hsl(0,85%,50.0%)']);
	assert.deepEqual(row('Y'), [40, -20, 'hsl(220,85%,50.0%)']);
	assert.deepEqual(row('Z'), [30, 0, 'hsl(0,0%,94%)']);
	assert.deepEqual(row('V'), [0, 10, 'hsl(0,85%,71.0%)']);
	// the leaves follow their callers: matched by path
	const leaf = nodeOf(P, base, ['caller_X', 'leaf_X']);
	assert.equal(diff.diffBefore(base, before, leaf), 20);
});

test('BEFORE\'s frames gone from the graph', async () => {
	const { P, base, data } = await diffPair();
	const { before } = diff.readBefore(data, P);
	assert.deepEqual(diff.diffGone(base, before), [{ path: ['caller_W'], hits: 10, share: 10 }]);
});

test('the colours are on for the plain caller-rooted graph only', async () => {
	const { P, data } = await diffPair();
	const { before } = diff.readBefore(data, P);
	const v = { mode: 'flame', leafRooted: false, transforms: [] };
	assert.ok(diff.diffOn(before, v, false));
	assert.ok(!diff.diffOn(before, v, true));
	assert.ok(!diff.diffOn(before, Object.assign({}, v, { leafRooted: true }), false));
	assert.ok(!diff.diffOn(before, Object.assign({}, v, { mode: 'sandwich' }), false));
	assert.ok(!diff.diffOn(before, Object.assign({}, v, { transforms: [{ t: 'merge', name: 0 }] }), false));
	assert.ok(!diff.diffOn(null, v, false));
});

test('a damaged BEFORE is said, and the page stays a plain graph', async () => {
	const { P, data } = await diffPair();
	const bad = Object.assign({}, data, { base: Object.assign({}, data.base, { names: [['x', 99]] }) });
	const { before, damaged } = diff.readBefore(bad, P);
	assert.equal(before, null);
	assert.match(damaged, /BEFORE side of this differential page is damaged \(name 0\)/);
});
