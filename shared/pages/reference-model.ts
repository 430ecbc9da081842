/**
 * The API reference's content, read from an OpenAPI 3.1 document (issue 24 point 8): operations grouped by
 * tag in the document's order, each with its parameters, request body, answers per status and examples (the
 * document's own, else generated from the schema). Format-neutral: reference-page.ts renders it as HTML and
 * Markdown. Pure.
 */
import { exampleOf, type JsonSchema, ownExample, pointerResolver, prettyJson, type RefResolver } from './schema-example';
import { type SchemaRow, schemaRows } from './schema-view';

type Json = Record<string, unknown>;

export interface ParamView {
  name: string;
  in: string;
  required: boolean;
  row: SchemaRow;
  example: unknown;
}

export interface ContentView {
  mediaTypes: string[];
  /** The schema of the first media type (they share one in this service). */
  row?: SchemaRow;
  /** JSON example text, only for JSON media types. */
  example?: string;
}

export interface AnswerView extends ContentView {
  status: string;
  description: string;
  headers: Array<{ name: string; description?: string; type: string }>;
}

export interface OperationView {
  /** Anchor of the operation: its operationId (or method and path). */
  id: string;
  method: string;
  path: string;
  summary: string;
  description: string;
  /** Credentials the operation declares for itself (absent: the document's default applies). */
  security?: string;
  parameters: ParamView[];
  body?: ContentView & { required: boolean };
  answers: AnswerView[];
  /** A curl command for the operation with example values. */
  request: string;
}

export interface TagView {
  name: string;
  id: string;
  description?: string;
  operations: OperationView[];
}

export interface ReferenceView {
  title: string;
  description: string;
  server: string;
  /** The document's default credentials, in words. */
  security?: string;
  schemes: Array<{ name: string; text: string }>;
  tags: TagView[];
}

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options', 'trace'] as const;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const isJsonType = (t: string): boolean => /^application\/([\w.+-]+\+)?json\b/i.test(t);

/** `Market reads` → `tag-market-reads`: an anchor that cannot collide with an operationId. */
const tagAnchor = (name: string): string =>
  `tag-${name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}`;

const anchorOf = (op: Json, method: string, path: string): string => {
  const id = str(op.operationId);
  return /^[A-Za-z][\w.-]*$/.test(id) ? id : `${method}${path.replace(/[^A-Za-z0-9]+/g, '-')}`.replace(/-$/, '');
};

/** The reference content of an OpenAPI 3.1 document. */
export function referenceView(doc: Json): ReferenceView {
  const resolve = pointerResolver(doc);
  const deref = <T>(v: unknown): T => {
    let at = v;
    for (let hops = 0; isObject(at) && typeof at.$ref === 'string' && hops < 8; hops++) at = resolve(at.$ref);
    return (isObject(at) ? at : {}) as T;
  };
  const info = isObject(doc.info) ? doc.info : {};
  const server = str((Array.isArray(doc.servers) && isObject(doc.servers[0]) ? doc.servers[0] : {}).url);
  const components = isObject(doc.components) ? doc.components : {};
  const schemes = isObject(components.securitySchemes) ? components.securitySchemes : {};
  const declaredTags = (Array.isArray(doc.tags) ? doc.tags : []).filter(isObject);
  const tags = new Map<string, TagView>(
    declaredTags.map((t) => [str(t.name), { name: str(t.name), id: tagAnchor(str(t.name)), description: str(t.description) || undefined, operations: [] }]),
  );
  for (const [path, rawItem] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    const item = deref<Json>(rawItem);
    for (const method of METHODS) {
      if (!isObject(item[method])) continue;
      const op = item[method] as Json;
      const tag = str(Array.isArray(op.tags) ? op.tags[0] : '') || 'Other';
      if (!tags.has(tag)) tags.set(tag, { name: tag, id: tagAnchor(tag), operations: [] });
      tags.get(tag)?.operations.push(operationView(method, path, op, item, { resolve, deref, server, schemes, defaultSecurity: doc.security }));
    }
  }
  return {
    title: str(info.title),
    description: str(info.description),
    server,
    security: Array.isArray(doc.security) ? securityText(doc.security, schemes) : undefined,
    schemes: Object.entries(schemes)
      .filter(([, s]) => isObject(s))
      .map(([name, s]) => ({ name, text: schemeText(s as Json) })),
    tags: [...tags.values()].filter((t) => t.operations.length > 0),
  };
}

interface Context {
  resolve: RefResolver;
  deref: <T>(v: unknown) => T;
  server: string;
  schemes: Json;
  defaultSecurity: unknown;
}

function operationView(method: string, path: string, op: Json, item: Json, ctx: Context): OperationView {
  const params = new Map<string, Json>();
  for (const p of [...(Array.isArray(item.parameters) ? item.parameters : []), ...(Array.isArray(op.parameters) ? op.parameters : [])]) {
    const param = ctx.deref<Json>(p);
    params.set(`${str(param.in)} ${str(param.name)}`, param);
  }
  const parameters = [...params.values()].map((p): ParamView => {
    const schema = (p.schema ?? {}) as JsonSchema;
    const row = schemaRows(schema, ctx.resolve, str(p.name), p.required === true);
    if (typeof p.description === 'string' && p.description !== row.description) row.description = p.description;
    const own = ownExample(p);
    return { name: str(p.name), in: str(p.in), required: p.required === true, row, example: own ? own.value : exampleOf(schema, ctx.resolve) };
  });
  const requestBody = op.requestBody === undefined ? undefined : ctx.deref<Json>(op.requestBody);
  const body = requestBody ? { ...contentView(requestBody.content, ctx), required: requestBody.required === true } : undefined;
  const answers = Object.entries(isObject(op.responses) ? op.responses : {}).map(([status, raw]): AnswerView => {
    const r = ctx.deref<Json>(raw);
    const headers = Object.entries(isObject(r.headers) ? r.headers : {}).map(([name, h]) => {
      const header = ctx.deref<Json>(h);
      return { name, description: str(header.description) || undefined, type: schemaRows(header.schema as JsonSchema, ctx.resolve).type };
    });
    return { status, description: str(r.description), headers, ...contentView(r.content, ctx) };
  });
  return {
    id: anchorOf(op, method, path),
    method: method.toUpperCase(),
    path,
    summary: str(op.summary),
    description: str(op.description),
    security: Array.isArray(op.security) ? securityText(op.security, ctx.schemes) : undefined,
    parameters,
    body,
    answers,
    request: curlOf(method, path, parameters, body, Array.isArray(op.security) ? op.security : ctx.defaultSecurity, ctx),
  };
}

function contentView(content: unknown, ctx: Context): ContentView {
  const types = Object.entries(isObject(content) ? content : {});
  if (types.length === 0) return { mediaTypes: [] };
  const [mediaType, raw] = types[0];
  const media = ctx.deref<Json>(raw);
  const schema = media.schema as JsonSchema | undefined;
  const view: ContentView = { mediaTypes: types.map(([t]) => t), row: schema === undefined ? undefined : schemaRows(schema, ctx.resolve) };
  if (isJsonType(mediaType)) view.example = prettyJson(mediaExample(media, ctx));
  return view;
}

/** A media type's example: `example`, the first of `examples` (its `value`), else one generated from its schema. */
function mediaExample(media: Json, ctx: Context): unknown {
  if ('example' in media) return media.example;
  if (isObject(media.examples)) {
    const first = Object.values(media.examples).map((e) => ctx.deref<Json>(e))[0];
    if (first && 'value' in first) return first.value;
  }
  return exampleOf(media.schema as JsonSchema, ctx.resolve);
}

function schemeText(s: Json): string {
  const desc = str(s.description);
  const how =
    s.type === 'http'
      ? `HTTP ${str(s.scheme)}: \`Authorization: ${str(s.scheme).replace(/^./, (c) => c.toUpperCase())} <token>\``
      : s.type === 'apiKey'
        ? `${str(s.in)} \`${str(s.name)}\``
        : str(s.type);
  return desc ? `${how}. ${desc}` : how;
}

/** Security requirements in words: each alternative, `none` for the empty one. */
function securityText(requirements: unknown[], schemes: Json): string {
  const alternatives = requirements.filter(isObject).map((r) => {
    const names = Object.keys(r);
    return names.length === 0 ? 'no credentials' : names.map((n) => (isObject(schemes[n]) ? n : `${n} (undeclared)`)).join(' and ');
  });
  return alternatives.length === 0 ? 'no credentials' : alternatives.join(', or ');
}

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** `curl` with the path filled in, required query parameters, the credentials it needs and the body. */
function curlOf(method: string, path: string, params: ParamView[], body: OperationView['body'], security: unknown, ctx: Context): string {
  const filled = path.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const p = params.find((x) => x.in === 'path' && x.name === name);
    return p ? encodeURIComponent(text(p.example)) : whole;
  });
  const query = params.filter((p) => p.in === 'query' && p.required).map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(text(p.example))}`);
  const url = `${ctx.server}${filled}${query.length ? `?${query.join('&')}` : ''}`;
  const flag = method === 'get' ? [] : method === 'head' ? ['-I'] : ['-X', method.toUpperCase()];
  const lines = [['curl', ...flag, shellQuote(url)].join(' ')];
  for (const p of params.filter((x) => x.in === 'header' && x.required)) lines.push(`-H ${shellQuote(`${p.name}: ${text(p.example)}`)}`);
  const credential = credentialHeader(security, ctx.schemes);
  if (credential) lines.push(`-H ${shellQuote(credential)}`);
  if (body && body.mediaTypes.length > 0) {
    lines.push(`-H ${shellQuote(`Content-Type: ${body.mediaTypes[0]}`)}`);
    if (body.example !== undefined) lines.push(`--data ${shellQuote(body.example)}`);
  }
  return lines.join(' \\\n  ');
}

/** The header of the first declared credential, when the operation takes no anonymous caller. */
function credentialHeader(security: unknown, schemes: Json): string | null {
  if (!Array.isArray(security) || security.some((r) => isObject(r) && Object.keys(r).length === 0)) return null;
  for (const r of security.filter(isObject)) {
    for (const name of Object.keys(r)) {
      const s = schemes[name];
      if (!isObject(s)) continue;
      if (s.type === 'http' && str(s.scheme).toLowerCase() === 'bearer') return 'Authorization: Bearer <token>';
      if (s.type === 'http') return `Authorization: ${str(s.scheme)} <credentials>`;
      if (s.type === 'apiKey' && s.in === 'header') return `${str(s.name)}: <key>`;
      if (s.type === 'apiKey' && s.in === 'cookie') return `Cookie: ${str(s.name)}=<session>`;
    }
  }
  return null;
}
