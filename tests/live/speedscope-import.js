// load speedscope's release bundle under node and import a file with its own importer
const fs = require('fs');
const vm = require('vm');
const [bundlePath, file] = process.argv.slice(2);
let src = fs.readFileSync(bundlePath, 'utf8');
const ns = /var ([\w$]+)=\{\};[\w$]+\(\1,\{importFromFileSystemDirectoryEntry/.exec(src);
if (!ns) throw new Error('speedscope bundle: import module not found');
const init = new RegExp('\\(([\\w$]+)\\(\\),' + ns[1].replace('$', '\\$') + '\\)').exec(src);
if (!init) throw new Error('speedscope bundle: import module init not found');
const start = src.indexOf('(()=>{');
src = src.slice(0, start + 6) + `globalThis.__ss=()=>(${init[1]}(),${ns[1]});` + src.slice(start + 6);
function stub() {
  return new Proxy(function () {}, {
    get: (t, k) => (k === Symbol.toPrimitive ? () => '' : k === 'then' ? undefined : stub()),
    apply: () => stub(), construct: () => stub(),
  });
}
const ctx = { console: { log() {}, warn() {}, error: console.error, info() {} }, TextDecoder, TextEncoder,
  setTimeout, clearTimeout, Promise, Uint8Array, ArrayBuffer, DataView, URL, atob, btoa };
ctx.window = ctx; ctx.self = ctx; ctx.document = stub(); ctx.navigator = { userAgent: 'node' };
ctx.location = { hash: '', search: '', href: 'file:///', protocol: 'file:' };
ctx.localStorage = stub(); ctx.addEventListener = () => {}; ctx.requestAnimationFrame = () => 0;
vm.createContext(ctx);
try { vm.runInContext(src, ctx); } catch (e) { /* the UI cannot start without a DOM */ }
(async () => {
  const imp = ctx.__ss();
  const text = fs.readFileSync(file, 'utf8');
  const g = await imp.importProfileGroupFromText(file.split('/').pop(), text);
  if (!g) throw new Error('speedscope did not recognise ' + file);
  const out = { name: g.name, profiles: g.profiles.map(p => {
    const funcs = {};
    p.forEachFrame(f => { funcs[f.name] = f.getSelfWeight(); });
    return { name: p.getName(), total: p.getTotalWeight(), unit: p.getWeightUnit(), selfByFrame: funcs };
  }) };
  console.log(JSON.stringify(out));
})().catch(e => { console.error('import failed: ' + e.stack); process.exit(1); });
