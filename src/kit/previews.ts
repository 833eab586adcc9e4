import { createHash } from 'node:crypto';
import type { JsonObject } from '../core/types.js';
import { isJsonObject, jsonObjects } from '../core/json-object.js';
import { adcpError } from '../server/tools/adcp-error.js';
import type { AdcpToolDefinition } from '../server/types.js';

/**
 * `preview_creative` (preview-creative-request.json): the kit renders a manifest itself, as a
 * self-contained HTML page (its image, video or HTML asset, nothing fetched by the kit), answered
 * as `preview_html`, or as a `data:` URL of the same page for `output_format: url`. Buyer
 * values are escaped; only http(s) asset URLs are rendered.
 */

const MAX_INPUTS = 20;
const escape = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
const webUrl = (value: unknown): string | undefined => {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
};
const size = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= 10_000 ? value : undefined;

/** The page showing a manifest's first renderable asset, and its dimensions. */
function render(manifest: JsonObject): { html: string; width: number; height: number } {
  const assets = isJsonObject(manifest.assets) ? Object.values(manifest.assets).filter(isJsonObject) : [];
  const visual = assets.find((a) => ['image', 'video'].includes(String(a.asset_type)) && webUrl(a.url) !== undefined);
  const width = size(visual?.width) ?? 300;
  const height = size(visual?.height) ?? 250;
  const url = visual === undefined ? undefined : (webUrl(visual.url) as string);
  const body =
    url === undefined
      ? `<p>${escape(typeof manifest.creative_id === 'string' ? manifest.creative_id : 'creative')}: no image or video asset to show</p>`
      : visual?.asset_type === 'video'
        ? `<video src="${escape(url)}" width="${width}" height="${height}" controls muted></video>`
        : `<img src="${escape(url)}" width="${width}" height="${height}" alt="">`;
  return {
    html: `<!doctype html><meta charset="utf-8"><body style="margin:0">${body}</body>`,
    width,
    height,
  };
}

function previewsOf(manifest: JsonObject, inputs: JsonObject[], format: 'url' | 'html'): JsonObject[] {
  const page = render(manifest);
  const url = `data:text/html;base64,${Buffer.from(page.html).toString('base64')}`;
  const list = inputs.length > 0 ? inputs.slice(0, MAX_INPUTS) : [{ name: 'default' }];
  return list.map((input, i) => {
    const id = createHash('sha256')
      .update(JSON.stringify([manifest.creative_id, input.name, i]))
      .digest('hex')
      .slice(0, 12);
    return {
      preview_id: `pv_${id}`,
      renders: [
        {
          render_id: `r_${id}`,
          output_format: format,
          ...(format === 'html' ? { preview_html: page.html } : { preview_url: url }),
          role: 'primary',
          dimensions: { width: page.width, height: page.height },
          embedding: { recommended_sandbox: 'allow-scripts', requires_https: false },
        },
      ],
      input: { name: typeof input.name === 'string' ? input.name : 'default' },
    };
  });
}

/**
 * The render form asked for: `output_format`, else `format` (the name sales-social's storyboard
 * sends), else the schema's default `url`.
 */
const outputOf = (request: JsonObject) => {
  const value = request.output_format ?? request.format;
  return value === 'html' ? 'html' : 'url';
};

export function previewTools(now: () => number): AdcpToolDefinition[] {
  return [
    {
      name: 'preview_creative',
      description: 'Render previews of creative manifests (single or batch), as HTML or a data: URL.',
      handler: (args) => {
        const expires = new Date(now() + 86_400_000).toISOString();
        if (args.request_type === 'variant') {
          throw adcpError('REFERENCE_NOT_FOUND', { message: 'This seller keeps no variants.', field: 'variant_id' });
        }
        if (args.request_type === 'batch') {
          const requests = jsonObjects(args.requests);
          if (requests.length === 0 || requests.length > 50) {
            throw adcpError('INVALID_REQUEST', { message: 'requests must hold 1 to 50 requests.', field: 'requests' });
          }
          return {
            response_type: 'batch',
            results: requests.map((r) => {
              const manifest = isJsonObject(r.creative_manifest) ? r.creative_manifest : {};
              return {
                success: true,
                creative_id: typeof manifest.creative_id === 'string' ? manifest.creative_id : '',
                response: {
                  previews: previewsOf(manifest, jsonObjects(r.inputs), outputOf(r)),
                  expires_at: expires,
                },
              };
            }),
          };
        }
        if (!isJsonObject(args.creative_manifest)) {
          throw adcpError('INVALID_REQUEST', { message: 'creative_manifest is required.', field: 'creative_manifest' });
        }
        return {
          response_type: 'single',
          previews: previewsOf(args.creative_manifest, jsonObjects(args.inputs), outputOf(args)),
          expires_at: expires,
        };
      },
    },
  ];
}
