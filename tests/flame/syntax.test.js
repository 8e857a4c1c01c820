// SPDX-License-Identifier: GPL-2.0-or-later
// syntax.test.js - every module of the page parses (node --check), none is
// over ~500 lines, and none but page.js keeps state at module level: no
// top-level let or var, no top-level const bound to an object, an array or
// a new Map that code could change (a table is Object.freeze()d).
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { FLAME } = require('./fixture.js');

const modules = fs.readdirSync(FLAME).filter((f) => f.endsWith('.js'));

test('the modules are the ones the build bundles', () => {
	const build = fs.readFileSync(path.join(FLAME, 'meson.build'), 'utf8');
	const listed = [...build.matchAll(/'([a-z]+\.js)'/g)].map((m) => m[1]).sort();
	assert.deepEqual(listed, [...modules].sort());
});

for (const f of modules) {
	test(f + ': node --check, at most 550 lines, no module-level state', () => {
		execFileSync(process.execPath, ['--check', path.join(FLAME, f)]);
		const src = fs.readFileSync(path.join(FLAME, f), 'utf8');
		const lines = src.split('\n').length;
		assert.ok(lines <= 550, f + ' has ' + lines + ' lines');
		if (f === 'page.js')
			return;
		// at the top level: no let or var; a const object or array frozen
		for (const line of src.split('\n')) {
			assert.doesNotMatch(line, /^(let|var) /, f + ': module-level ' + line);
			assert.doesNotMatch(line, /^const [^=]+= (new |\{|\[)/, f + ': module-level mutable ' + line);
		}
	});
}
