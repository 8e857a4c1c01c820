// SPDX-License-Identifier: GPL-2.0-or-later
// layout.test.js - the known workload laid out (tree.js layout(), zoom.js):
// the widths of a zoom in pixels, left-heavy, the frame under a point, the
// labels' room, the keyboard's callees, the search's summed share.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { FLAME, known, nodeOf } = require('./fixture.js');
const tree = require(path.join(FLAME, 'tree.js'));
const zoom = require(path.join(FLAME, 'zoom.js'));

// the frames a zoom picks, as "label x0-x1"
function picked(P, t, z, w) {
	const p = zoom.pickFrames(t, tree.totals(t, false), z, w, false);
	return p.node.map((n, k) => tree.label(P, t, n) + ' ' + p.x0[k] + '-' + p.x1[k]);
}

test('widths: 10 px a hit, callees in name order', async () => {
	const { P, base } = await known();
	tree.layout(base, false, false);
	assert.deepEqual(picked(P, base, 0, 1550), ['all 0-1550', 'main 0-1550', 'a 0-700', 'b 0-400',
		'c 0-400', 'c 400-700', 'd 700-1450', 'r 1450-1550', 'r 1450-1550', 'c 1450-1550']);
	assert.equal(zoom.pickFrames(base, base.totH, 0, 1550, false).maxDepth, 4);
});

test('widths: left-heavy puts the heaviest callee first', async () => {
	const { P, base } = await known();
	tree.layout(base, false, true);
	assert.deepEqual(picked(P, base, 0, 155).slice(0, 5), ['all 0-155', 'main 0-155', 'd 0-75',
		'a 75-145', 'b 75-115']);
	tree.layout(base, false, false);
});

test('a zoom: its frame full width, frames under a pixel left out', async () => {
	const { P, base } = await known();
	tree.layout(base, false, false);
	const a = nodeOf(P, base, ['main', 'a']);
	assert.deepEqual(picked(P, base, a, 700), ['a 0-700', 'b 0-400', 'c 0-400', 'c 400-700']);
	// at 15 px the whole graph: r (10 of 155 hits) covers 1 px, a column of its own
	assert.deepEqual(picked(P, base, 0, 15).filter((s) => s.startsWith('r')), ['r 14-15', 'r 14-15']);
	assert.deepEqual(picked(P, base, 0, 5).filter((s) => s.startsWith('r')), []);
});

test('the frame under a point, the zoom\'s callers above it', async () => {
	const { P, base } = await known();
	tree.layout(base, false, false);
	const geo = { maxDepth: 4, cssW: 1550, inverted: false };
	const at = (z, x, d, g = geo) => {
		const n = zoom.frameAt(base, base.totH, z, false, g, x, zoom.PAD_TOP + d * zoom.ROW + 1);
		return n < 0 ? null : tree.pathOf(P, base, n).join(';');
	};
	assert.equal(at(0, 705, 2), 'main;d');
	assert.equal(at(0, 699, 3), 'main;a;c');
	assert.equal(at(0, 1000, 3), null);
	assert.equal(at(0, 1500, 4), 'main;r;r;c');
	// inverted: the root on the bottom row, d two rows up
	const inv = { maxDepth: 4, cssW: 1550, inverted: true };
	assert.equal(at(0, 705, 2, inv), 'main;d');
	assert.equal(at(0, 10, 3, inv), 'main');
	assert.equal(at(0, 10, 4, inv), '');
	// zoomed into a: main above it, whole width
	const a = nodeOf(P, base, ['main', 'a']);
	assert.equal(at(a, 1500, 1), 'main');
	// b 40 of a's 70 hits: 0-886 px, then c
	assert.equal(at(a, 880, 3), 'main;a;b');
	assert.equal(at(a, 890, 3), 'main;a;c');
	assert.equal(at(a, 880, 4), 'main;a;b;c');
	assert.equal(at(a, 890, 4), null);
});

test('rows, widths and labels', () => {
	assert.equal(zoom.rowY(false, 4, 0), zoom.PAD_TOP);
	assert.equal(zoom.rowY(true, 4, 0), zoom.PAD_TOP + 4 * zoom.ROW);
	assert.equal(zoom.frameWidth(10, 20), 9);
	assert.equal(zoom.frameWidth(10, 11), 1);
	assert.equal(zoom.frameText('schedule_timeout', 200, 7), 'schedule_timeout');
	assert.equal(zoom.frameText('schedule_timeout', 60, 7), 'sched..');
	assert.equal(zoom.frameText('schedule_timeout', 20, 7), '');
});

test('the keyboard: callees left to right, the zoom\'s callers', async () => {
	const { P, base } = await known();
	tree.layout(base, false, true);
	const main = nodeOf(P, base, ['main']);
	assert.deepEqual(zoom.visibleKids(base, base.totH, false, main).map((n) => tree.label(P, base, n)),
		['d', 'a', 'r']);
	tree.layout(base, false, false);
	const c = nodeOf(P, base, ['main', 'a', 'b', 'c']), a = nodeOf(P, base, ['main', 'a']);
	assert.ok(zoom.inZoom(base, a, c));
	assert.ok(!zoom.inZoom(base, c, a));
	assert.ok(zoom.isAncestorOfZoom(base, c, main));
});

test('search: a match nested in another counts once', async () => {
	const { P, base } = await known();
	const want = new Set(['a', 'c']);
	const isMatch = (n) => n > 0 && want.has(tree.label(P, base, n));
	// a (70) holds two c's; c under r (10) counts on its own
	assert.deepEqual(zoom.matchedUnder(base, base.totH, false, isMatch, 0), { sum: 80, frames: 2 });
	const r = nodeOf(P, base, ['main', 'r']);
	assert.deepEqual(zoom.matchedUnder(base, base.totH, false, isMatch, r), { sum: 10, frames: 1 });
});
