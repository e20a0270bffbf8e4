#!/usr/bin/env node
// The stepstat summary (../shared/spec/step-stats.md) in DuckDB SQL: a reference for
// bench/compare. Prints one JSON object of integers, the same keys as pandas_summary.py.
//
//   node bench/duckdb_summary.mjs GPU_TRACE.csv [KERN_EXEC_TRACE.csv] [--policy P.toml]
//
// Only the 2024+ nanosecond layout is read (`Start (ns)`, `API Start (ns)`, ...); any other
// layout is an error. Needs `npm install --prefix bench` (bench/compare runs it).
import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync, openSync, readSync, closeSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const GPU_COLUMNS = { 'Start (ns)': 'BIGINT', 'Duration (ns)': 'BIGINT', 'Name': 'VARCHAR' };
const API_COLUMNS = { 'API Start (ns)': 'BIGINT', 'API Dur (ns)': 'BIGINT' };

function fail(message) {
  process.stderr.write(`duckdb_summary: ${message}\n`);
  process.exit(2);
}

// ---- a TOML subset: tables, arrays of tables, strings, booleans, arrays of strings ----

function parseTomlSubset(text, path) {
  const doc = {};
  let table = doc;
  let i = 0;
  let line = 1;
  const error = (what) => fail(`${path}:${line}: ${what}`);
  const skipSpace = (newlines) => {
    for (;;) {
      const c = text[i];
      if (c === ' ' || c === '\t' || c === '\r') i++;
      else if (c === '\n' && newlines) { i++; line++; }
      else if (c === '#') { while (i < text.length && text[i] !== '\n') i++; }
      else return;
    }
  };
  const parseString = () => {
    const quote = text[i++];
    let out = '';
    while (i < text.length && text[i] !== quote) {
      if (text[i] === '\n') error('newline in string');
      if (quote === '"' && text[i] === '\\') {
        const e = text[i + 1];
        const simple = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\', b: '\b', f: '\f' };
        if (e in simple) { out += simple[e]; i += 2; }
        else if (e === 'u') { out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16)); i += 6; }
        else error(`unsupported escape \\${e}`);
      } else {
        out += text[i++];
      }
    }
    if (text[i] !== quote) error('unterminated string');
    i++;
    return out;
  };
  const parseValue = () => {
    const c = text[i];
    if (c === '"' || c === "'") return parseString();
    if (text.startsWith('true', i)) { i += 4; return true; }
    if (text.startsWith('false', i)) { i += 5; return false; }
    if (c === '[') {
      i++;
      const items = [];
      for (;;) {
        skipSpace(true);
        if (text[i] === ']') { i++; return items; }
        items.push(parseValue());
        skipSpace(true);
        if (text[i] === ',') i++;
        else if (text[i] !== ']') error('expected , or ] in array');
      }
    }
    return error(`unsupported value starting with ${JSON.stringify(c)}`);
  };
  for (;;) {
    skipSpace(true);
    if (i >= text.length) return doc;
    if (text.startsWith('[[', i)) {
      const end = text.indexOf(']]', i);
      const name = text.slice(i + 2, end).trim();
      (doc[name] ??= []).push(table = {});
      i = end + 2;
    } else if (text[i] === '[') {
      const end = text.indexOf(']', i);
      table = doc[text.slice(i + 1, end).trim()] ??= {};
      i = end + 1;
    } else {
      const match = /^[A-Za-z0-9_-]+/.exec(text.slice(i, i + 100));
      if (!match) error('expected a key');
      i += match[0].length;
      skipSpace(false);
      if (text[i++] !== '=') error('expected =');
      skipSpace(false);
      table[match[0]] = parseValue();
    }
  }
}

function defaultPolicyPath() {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  for (const candidate of [join(root, 'src/policy/presets/dit-nvfp4.toml'),
                           join(root, '../shared/spec/dit-nvfp4.toml')]) {
    if (existsSync(candidate)) return candidate;
  }
  return fail('no default policy found; pass --policy');
}

// ---- CSV layout ----

const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;

// The header row (log lines may come first) and every column name in it, so read_csv gets
// explicit columns keyed by name; fails on any layout but the 2024+ nanosecond one.
function csvLayout(path, required) {
  let head;
  try {
    const fd = openSync(path, 'r');
    const buffer = Buffer.alloc(65536);
    head = buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString('utf8');
    closeSync(fd);
  } catch (e) {
    fail(`${path}: ${e.message}`);
  }
  const lines = head.replace(/^\uFEFF/, '').split('\n').slice(0, 64);
  for (let index = 0; index < lines.length; index++) {
    const fields = lines[index].replace(/\r$/, '').split(',').map((f) => f.trim().replace(/^"|"$/g, ''));
    if (Object.keys(required).every((c) => fields.includes(c))) {
      return { skip: index, columns: fields.map((f) => [f, required[f] ?? 'VARCHAR']) };
    }
  }
  return fail(`${path}: not the 2024+ nsys layout (need header columns ${Object.keys(required).join(', ')})`);
}

function readCsvSql(path, required) {
  const { skip, columns } = csvLayout(path, required);
  const struct = columns.map(([name, type]) => `${sqlString(name)}: ${sqlString(type)}`).join(', ');
  return `read_csv(${sqlString(path)}, header = true, skip = ${skip}, auto_detect = false,
    delim = ',', quote = '"', escape = '"', columns = {${struct}})`;
}

// ---- the summary ----

const q = (name) => `"${name}"`;

function classificationCase(components, caseSensitive) {
  const options = caseSensitive ? "'c'" : "'i'";
  const anyMatch = (patterns) => patterns.length
    ? patterns.map((p) => `regexp_matches(name, ${sqlString(p)}, ${options})`).join(' OR ')
    : 'false';
  const arms = components.map((c, index) =>
    `WHEN (${anyMatch(c.patterns ?? [])}) AND NOT (${anyMatch(c.exclude ?? [])}) THEN ${index}`);
  return `CASE ${arms.join(' ')} ELSE ${components.length} END`;
}

// The rows of `table` with `prev_end`, the latest end among the rows sorted before by (s, e):
// the frontier of the gap walk.
const withFrontierSql = (table) => `
  SELECT s, e, max(e) OVER (ORDER BY s, e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
  FROM ${table}`;

// Lengths of (the union of api) and (that union intersected with the union of kernels), by
// one sweep over every start (+1) and end (-1) in time order: a stretch up to the next event
// counts where the running depths are positive. Within a run of equal times only the last
// row, whose depths include every event at that time, reaches a later time.
const launchOverlapSql = `
  SELECT coalesce(sum(next_t - t) FILTER (WHERE api_depth > 0), 0)::BIGINT AS launch_union_ns,
         coalesce(sum(next_t - t) FILTER (WHERE api_depth > 0 AND kernel_depth > 0), 0)::BIGINT
           AS launch_overlap_ns
  FROM (SELECT t, lead(t) OVER w AS next_t, sum(da) OVER w AS api_depth, sum(dk) OVER w AS kernel_depth
        FROM (SELECT s AS t, 1 AS da, 0 AS dk FROM api UNION ALL SELECT e, -1, 0 FROM api
              UNION ALL SELECT s, 0, 1 FROM kernels UNION ALL SELECT e, 0, -1 FROM kernels)
        WINDOW w AS (ORDER BY t ROWS UNBOUNDED PRECEDING))`;

async function one(connection, sql) {
  const reader = await connection.runAndReadAll(sql);
  return reader.getRowObjects()[0];
}

async function summarize(gpuPath, execPath, policy) {
  const instance = await DuckDBInstance.create(':memory:');
  const db = await instance.connect();
  const components = policy.component ?? [];
  const caseSensitive = policy.policy?.case_sensitive === true;
  const gpuCsv = readCsvSql(gpuPath, GPU_COLUMNS);

  // Names are classified once each, and never stored per row: materialising 2.8M long
  // strings costs more than reading the file twice.
  await db.run(`CREATE TEMP TABLE names AS
    SELECT name, starts_with(name, '[CUDA mem') AS memory,
           ${classificationCase(components, caseSensitive)} AS component
    FROM (SELECT DISTINCT ${q('Name')} AS name FROM ${gpuCsv})`);
  await db.run(`CREATE TEMP TABLE ops AS
    SELECT ${q('Start (ns)')} AS s, ${q('Start (ns)')} + ${q('Duration (ns)')} AS e,
           ${q('Duration (ns)')} AS d, n.memory, n.component
    FROM ${gpuCsv} AS r LEFT JOIN names AS n ON r.${q('Name')} = n.name`);
  const nulls = await one(db, `SELECT count(*) FILTER (WHERE s IS NULL OR d IS NULL OR memory IS NULL) AS n FROM ops`);
  if (nulls.n > 0n) fail(`${gpuPath}: ${nulls.n} rows with an empty Start, Duration or Name`);
  await db.run(`CREATE TEMP TABLE kernels AS SELECT s, e, d, component FROM ops WHERE NOT memory`);

  const totals = await one(db, `SELECT
      coalesce(max(e) - min(s), 0) AS span_ns,
      count(*) AS gpu_operation_count,
      (SELECT count(*) FROM kernels) AS kernel_count,
      (SELECT coalesce(sum(d), 0)::BIGINT FROM kernels) AS kernel_time_ns
    FROM ops`);
  const gaps = await one(db, `SELECT count(*) AS gap_count,
      coalesce(sum(s - prev_end), 0)::BIGINT AS gap_total_ns, coalesce(max(s - prev_end), 0) AS gap_max_ns
    FROM (${withFrontierSql('kernels')}) WHERE s > prev_end`);

  let launch = { launch_union_ns: null, launch_overlap_ns: null };
  if (execPath !== undefined) {
    await db.run(`CREATE TEMP TABLE api AS
      SELECT ${q('API Start (ns)')} AS s, ${q('API Start (ns)')} + ${q('API Dur (ns)')} AS e
      FROM ${readCsvSql(execPath, API_COLUMNS)}`);
    const apiNulls = await one(db, `SELECT count(*) FILTER (WHERE s IS NULL OR e IS NULL) AS n FROM api`);
    if (apiNulls.n > 0n) fail(`${execPath}: ${apiNulls.n} rows with an empty API Start or API Dur`);
    launch = await one(db, launchOverlapSql);
  }

  const reader = await db.runAndReadAll(`SELECT component, count(*) AS launches, sum(d)::BIGINT AS time_ns
    FROM kernels GROUP BY component`);
  const byIndex = new Map(reader.getRowObjects().map((r) => [r.component, r]));
  const perComponent = {};
  [...components.map((c) => c.name), 'other'].forEach((name, index) => {
    const row = byIndex.get(index);
    perComponent[name] = { launches: row?.launches ?? 0n, time_ns: row?.time_ns ?? 0n };
  });
  return { ...totals, ...gaps, ...launch, components: perComponent };
}

// JSON with BigInts printed as exact integers.
function toJson(value) {
  return JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? `#big#${v}` : v), 2)
    .replace(/"#big#(-?\d+)"/g, '$1');
}

function parseArgs(argv) {
  const positional = [];
  let policyPath;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--policy') policyPath = argv[++i];
    else if (argv[i].startsWith('--policy=')) policyPath = argv[i].slice('--policy='.length);
    else if (argv[i].startsWith('-')) fail(`unknown option ${argv[i]}`);
    else positional.push(argv[i]);
  }
  if (positional.length < 1 || positional.length > 2 || (policyPath === undefined && argv.includes('--policy'))) {
    fail('usage: duckdb_summary.mjs GPU_TRACE.csv [KERN_EXEC_TRACE.csv] [--policy P.toml]');
  }
  return { gpuPath: positional[0], execPath: positional[1], policyPath: policyPath ?? defaultPolicyPath() };
}

const { gpuPath, execPath, policyPath } = parseArgs(process.argv.slice(2));
let policyText;
try {
  policyText = readFileSync(policyPath, 'utf8');
} catch (e) {
  fail(`${policyPath}: ${e.message}`);
}
const policy = parseTomlSubset(policyText, policyPath);
try {
  process.stdout.write(`${toJson(await summarize(gpuPath, execPath, policy))}\n`);
} catch (e) {
  fail(e.message.split('\n')[0]);
}
