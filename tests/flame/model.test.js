// SPDX-License-Identifier: GPL-2.0-or-later
// model.test.js - the views derived from the known workload (model.js):
// transforms, inversion, the sandwich's sums and callers, the filters,
// the search.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { FLAME, known, dump } = require('./fixture.js');
const model = require(path.join(FLAME, 'model.js'));
const { nameId } = require(path.join(FLAME, 'tree.js'));

const plain = () => ({ mode: 'flame', leafRooted: false, transforms: [], fn: -1, event: -1, proc: '',
	cpu: -1 });

test('merge: a function\'s callees join its caller', async () => {
	const { P, base, splits } = await known();
	const view = plain();
	view.transforms.push({ t: 'merge', name: nameId(P, 'a') });
	const { tree, flat } = model.derive(P, base, false, view, false, splits);
	assert.equal(tree, flat);
	assert.deepEqual(dump(P, tree), ['main 155', 'main;b 40', 'main;b;c 40', 'main;c 30', 'main;d 75',
		'main;r 10', 'main;r;r 10', 'main;r;r;c 10']);
});

test('focus: the stacks through a function, from its outermost frame', async () => {
	const { P, base, splits } = await known();
	const view = plain();
	view.transforms.push({ t: 'focus', name: nameId(P, 'r') });
	const { tree } = model.derive(P, base, false, view, false, splits);
	assert.deepEqual(dump(P, tree), ['r 10', 'r;r 10', 'r;r;c 10']);
	// then merge c: its hits go to the r that called it
	view.transforms.push({ t: 'merge', name: nameId(P, 'c') });
	assert.deepEqual(dump(P, model.derive(P, base, false, view, false, splits).tree), ['r 10', 'r;r 10']);
});

test('inverted: each stack from its leaf up', async () => {
	const { P, base, splits } = await known();
	const view = plain();
	view.leafRooted = true;
	const { tree } = model.derive(P, base, false, view, false, splits);
	assert.equal(tree.totH[0], 155);
	assert.deepEqual(dump(P, tree), ['c 80', 'c;a 30', 'c;a;main 30', 'c;b 40', 'c;b;a 40',
		'c;b;a;main 40', 'c;r 10', 'c;r;r 10', 'c;r;r;main 10', 'd 75', 'd;main 75']);
});

test('sandwich: self and total per function (a recursion counts once)', async () => {
	const { P, base } = await known();
	const fns = model.functions(P, base);
	const of = (name) => [fns.self[nameId(P, name)], fns.total[nameId(P, name)]];
	assert.deepEqual(of('main'), [0, 155]);
	assert.deepEqual(of('a'), [0, 70]);
	assert.deepEqual(of('c'), [80, 80]);
	assert.deepEqual(of('d'), [75, 75]);
	assert.deepEqual(of('r'), [0, 10]);
});

test('sandwich: the callers and callees of a function', async () => {
	const { P, base, splits } = await known();
	const view = plain();
	view.mode = 'sandwich';
	view.fn = nameId(P, 'c');
	const { tree, callers } = model.derive(P, base, false, view, false, splits);
	assert.deepEqual(dump(P, tree), ['c 80']);
	assert.deepEqual(dump(P, callers), ['c 80', 'c;a 30', 'c;a;main 30', 'c;b 40', 'c;b;a 40',
		'c;b;a;main 40', 'c;r 10', 'c;r;r 10', 'c;r;r;main 10']);
	// the callers of r start at its outermost frame
	view.fn = nameId(P, 'r');
	assert.deepEqual(dump(P, model.derive(P, base, false, view, false, splits).callers),
		['r 10', 'r;main 10']);
});

test('filters: by event, by command, by pid, by CPU', async () => {
	const { P, base, splits } = await known();
	const total = (f) => model.derive(P, base, false, Object.assign(plain(), f), false, splits).tree.totH[0];
	assert.equal(total({ event: 0 }), 105);
	assert.equal(total({ event: 1 }), 50);
	assert.equal(total({ proc: 'comm:beta' }), 50);
	assert.equal(total({ proc: 'pid:10' }), 105);
	assert.equal(total({ cpu: 0 }), 40);
	assert.equal(total({ cpu: 1, event: 1 }), 40);
	assert.equal(total({ proc: 'comm:nobody' }), 0);
	const v = Object.assign(plain(), { event: 1 });
	assert.deepEqual(dump(P, model.derive(P, base, false, v, false, splits).tree),
		['main 50', 'main;a 40', 'main;a;b 10', 'main;a;b;c 10', 'main;a;c 30', 'main;d 0', 'main;r 10',
			'main;r;r 10', 'main;r;r;c 10']);
});

test('search: names by text, case, regular expression, module', async () => {
	const names = [['main', 0], ['Alpha', 2, 'libx.so'], ['beta', 0]];
	assert.equal(model.matchNames(names, '', false, false), null);
	assert.deepEqual([...model.matchNames(names, 'a', false, false)], [1, 1, 1]);
	assert.deepEqual([...model.matchNames(names, 'A', false, true)], [0, 1, 0]);
	assert.deepEqual([...model.matchNames(names, '^b', true, false)], [0, 0, 1]);
	assert.deepEqual([...model.matchNames(names, 'libx', false, false)], [0, 1, 0]);
	assert.throws(() => model.matchNames(names, '(', true, false), /bad regular expression/);
});
