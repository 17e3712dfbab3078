// The document's component schemas, all generated from zod: the request bodies from the schemas that
// validate them (with what their refinements say in words), and the answers from the response schemas
// in ../schemas/responses. Answers refer to each other by name, e.g. a list page to its item.
import { z } from 'zod';
import { errorBody } from '../schemas/responses/error.js';
import { pageOf } from '../schemas/responses/common.js';
import { capture, captureEvent, captureText, filterMissingEvent, testEvent } from '../schemas/responses/captures.js';
import { delivery, deliveryDetail } from '../schemas/responses/deliveries.js';
import { feed, feedList, feedWithUrl } from '../schemas/responses/feeds.js';
import { feedRequestSchema } from '../schemas/feeds.js';
import { job, renderJson } from '../schemas/responses/jobs.js';
import { monitor, runAccepted } from '../schemas/responses/monitors.js';
import { bulkRequest, bulkResult, tagList } from '../schemas/monitor-bulk.js';
import { health, ready, status } from '../schemas/responses/status.js';
import { monitorSchema } from '../schemas/monitors.js';
import { channel, channelList, channelSchema, channelTestEvent } from '../schemas/channels.js';
import { imageRequestSchema, pdfRequestSchema } from '../schemas/render.js';
import { propsOf, toJsonSchema, type JsonSchema } from './operations.js';
import { PDF_TOOLS, type PdfTool } from '../../jobs/pdf-work.js';
import { PDF_TOOL_RULES, pdfToolSchema, type PdfToolLimits } from '../schemas/pdf-tools.js';

type Limits = Parameters<typeof monitorSchema>[0] & PdfToolLimits;

/** The component name of a PDF tool's request: PdfMergeRequest, PdfSplitRequest, ... */
export const pdfToolSchemaName = (tool: PdfTool) => `Pdf${tool[0]!.toUpperCase()}${tool.slice(1)}Request`;

/** What the refinements say in words, where a generated schema can only say "string". */
function annotate(schema: JsonSchema, notes: Record<string, JsonSchema>): JsonSchema {
  const props = propsOf(schema);
  for (const [name, extra] of Object.entries(notes)) if (props[name]) Object.assign(props[name], extra);
  return schema;
}

const urlNote = (description: string, example?: string): JsonSchema => ({
  format: 'uri',
  description,
  ...(example && { examples: [example] }),
});

function renderRequestSchema(schema: z.ZodType): JsonSchema {
  return annotate(toJsonSchema(schema), {
    url: urlNote(
      'Address of the page to render: an absolute http or https URL. Exactly one of url, html or markdown.',
      'https://example.com',
    ),
    html: {
      description:
        'HTML to render. Exactly one of url, html or markdown; with markdown, the page the Markdown goes into at ' +
        'its {{ toHTML }} marker.',
      examples: ['<h1>Hello</h1>'],
    },
    markdown: { examples: ['# Report\n\n| Item | Price |\n|---|--:|\n| Widget | 12.50 |'] },
    baseUrl: urlNote('Resolves relative links in html or markdown (not with url)'),
    webhookUrl: urlNote('Told of the async job\'s end (job.succeeded / job.failed); needs "async": true'),
    device: { examples: ['iPhone 13'] },
    timezoneId: { description: 'An IANA time zone such as "Europe/Paris"' },
  });
}

function requestSchemas(limits: Limits): Record<string, JsonSchema> {
  const ImageRequest = {
    ...renderRequestSchema(imageRequestSchema(limits)),
    description: 'POST /api/image: a page to a PNG, JPEG or WebP image',
  };
  const PdfRequest = {
    ...renderRequestSchema(pdfRequestSchema(limits)),
    description: 'POST /api/pdf: a page to a PDF',
  };
  const MonitorCreate = annotate(toJsonSchema(monitorSchema(limits)), {
    url: urlNote('The page to watch: an absolute http or https URL', 'https://example.com/pricing'),
    schedule: { examples: ['*/15 * * * *'] },
    timezone: { description: 'An IANA time zone such as "Europe/Paris"', examples: ['Europe/Paris'] },
    webhookUrl: urlNote('Told of changes and captures, as notify says'),
    notify: {
      description:
        '"change" → monitor.changed, "failure" → capture.failed and monitor.filter_missing, "capture" → ' +
        'capture.completed',
    },
  });
  MonitorCreate.description = 'A monitor: a page captured on a cron schedule and compared with its previous capture';
  const MonitorPatch: JsonSchema = {
    type: 'object',
    description:
      'A JSON Merge Patch (RFC 7396) of the monitor: objects merge key by key, null removes a key. The merged ' +
      'monitor is validated as a create is.',
    properties: Object.fromEntries(
      Object.entries(propsOf(MonitorCreate)).map(([name, p]) => [name, { anyOf: [p, { type: 'null' }] }]),
    ),
    additionalProperties: false,
  };
  const tools = Object.fromEntries(
    PDF_TOOLS.map((tool) => [
      pdfToolSchemaName(tool),
      {
        ...toJsonSchema(pdfToolSchema(tool, limits)),
        description: `POST /api/pdf/${tool}: ${PDF_TOOL_RULES[tool].summary}`,
      },
    ]),
  );
  const ChannelCreate = annotate(toJsonSchema(channelSchema), {
    url: urlNote(
      'slack, discord, teams, webhook: the incoming-webhook URL; ntfy: the topic URL. Write-only: shown as its ' +
        'origin and "/••••"; sent back as shown (or left out of a PATCH), it keeps the stored one',
      'https://hooks.slack.com/services/T000/B000/XXXX',
    ),
    digestAt: { examples: ['09:00'] },
  });
  ChannelCreate.description =
    'A channel: where alerts go besides a monitor webhook. email needs `to`; slack, discord, teams, ntfy and ' +
    'webhook need `url`; `token` is for ntfy and `headers` for webhook only. A template that does not parse is ' +
    'a 400 naming its line.';
  const ChannelPatch: JsonSchema = {
    type: 'object',
    description:
      'A JSON Merge Patch (RFC 7396) of the channel as shown: write-only values sent back masked ("••••") or ' +
      'left out keep what is stored. The merged channel is validated as a create is; the type cannot change.',
    properties: Object.fromEntries(
      Object.entries(propsOf(ChannelCreate)).map(([name, p]) => [name, { anyOf: [p, { type: 'null' }] }]),
    ),
    additionalProperties: false,
  };
  const MonitorBulk = toJsonSchema(bulkRequest);
  MonitorBulk.description =
    'One action on every monitor a tag names, or on listed ids: give exactly one of tag and ids';
  const FeedRequest = {
    ...toJsonSchema(feedRequestSchema),
    description: 'POST /api/feeds: scope "monitor" takes monitorId, "tag" takes tag, "key" neither',
  };
  return {
    ImageRequest,
    PdfRequest,
    MonitorCreate,
    MonitorPatch,
    MonitorBulk,
    ChannelCreate,
    ChannelPatch,
    FeedRequest,
    ...tools,
    PdfMetadataRead: PDF_METADATA_READ,
  };
}

/** What /api/pdf/metadata reads (PdfMetadataRead of src/pdf/engine.ts; an engine type, not a zod schema). */
const PDF_METADATA_READ: JsonSchema = {
  type: 'object',
  description: 'POST /api/pdf/metadata without a metadata option: what the PDF says of itself',
  required: ['pageCount', 'pdfVersion', 'encrypted', 'tagged', 'info', 'attachments'],
  properties: {
    pageCount: { type: 'integer' },
    pdfVersion: { type: 'string', examples: ['1.7'] },
    encrypted: { type: 'boolean' },
    tagged: { type: 'boolean' },
    info: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'The Info dictionary, as strings (dates as ISO 8601)',
    },
    xmp: { type: 'string', description: 'The XMP metadata packet, if the catalog has one' },
    pdfa: { type: 'string', description: 'The PDF/A level the XMP claims ("PDF/A-2b")' },
    pdfua: { type: 'string', description: 'The PDF/UA part the XMP claims ("PDF/UA-1")' },
    attachments: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'bytes'],
        properties: {
          name: { type: 'string' },
          contentType: { type: 'string' },
          relationship: { type: 'string' },
          bytes: { type: 'integer' },
        },
      },
    },
  },
};

function responseSchemas(limits: Limits): Record<string, JsonSchema> {
  const monitorResponse = monitor(limits);
  const named: Record<string, z.ZodType> = {
    Monitor: monitorResponse,
    MonitorList: pageOf(monitorResponse),
    Error: errorBody,
    Job: job,
    JobList: pageOf(job),
    RenderJson: renderJson,
    Capture: capture,
    CaptureList: pageOf(capture),
    CaptureText: captureText,
    CaptureEvent: captureEvent,
    FilterMissingEvent: filterMissingEvent,
    TestEvent: testEvent,
    ChannelTestEvent: channelTestEvent,
    RunAccepted: runAccepted,
    BulkResult: bulkResult,
    TagList: tagList,
    Channel: channel,
    ChannelList: channelList,
    Delivery: delivery,
    DeliveryList: pageOf(delivery),
    DeliveryDetail: deliveryDetail,
    Feed: feed,
    FeedCreated: feedWithUrl,
    FeedList: feedList,
    Status: status,
    Health: health,
    Ready: ready,
  };
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(named)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io: 'output', // the Monitor is its settings with every default filled in
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
    override: ({ zodSchema, jsonSchema }) => {
      // zod closes every object of an output; an answer stays open to new fields unless declared strict.
      const def = zodSchema._zod.def;
      if (def.type === 'object' && def.catchall === undefined) delete jsonSchema.additionalProperties;
      // JSON object keys are strings whatever a record says.
      if (JSON.stringify(jsonSchema.propertyNames) === '{"type":"string"}') delete jsonSchema.propertyNames;
      // zod bounds every integer to JavaScript's safe range, which tells a reader nothing.
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER && jsonSchema.maximum === Number.MAX_SAFE_INTEGER) {
        delete jsonSchema.minimum;
        delete jsonSchema.maximum;
      }
    },
  });
  // Shared parts would live under a "__shared" schema no reference can reach inside components.
  if ('__shared' in schemas) throw new Error('a response schema is reused without a name; register it');
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _s, $id: _i, ...schema }]) => [id, nullableAsTypeList(schema)]),
  );
}

/**
 * `anyOf: [{type: T, …}, {type: "null"}]` → `{type: [T, "null"], …}`: the same values, spelled so a reader
 * (or a tool walking `properties`) sees the fields of a nullable object. Not where the other branch
 * lists values (enum, const) or refers elsewhere, as null would then no longer be allowed or be lost.
 */
function nullableAsTypeList(node: unknown): JsonSchema {
  if (Array.isArray(node)) return node.map(nullableAsTypeList) as unknown as JsonSchema;
  if (node === null || typeof node !== 'object') return node as JsonSchema;
  const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, nullableAsTypeList(v)])) as JsonSchema;
  const options = out.anyOf as JsonSchema[] | undefined;
  if (options?.length !== 2 || options[1]?.type !== 'null' || Object.keys(options[1]).length !== 1) return out;
  const { anyOf: _, ...rest } = out;
  const value = options[0]!;
  const plain =
    typeof value.type === 'string' &&
    !['enum', 'const', '$ref', 'anyOf', 'oneOf', 'allOf', 'not'].some((k) => k in value);
  return plain ? { ...value, ...rest, type: [value.type, 'null'] } : out;
}

export function componentSchemas(limits: Limits): Record<string, JsonSchema> {
  return { ...requestSchemas(limits), ...responseSchemas(limits) };
}
