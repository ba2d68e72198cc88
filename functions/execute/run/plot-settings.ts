/**
 * The plot device one run gets: the request's `plots` (event.ts already held it to PLOT_LIMITS)
 * over the deployment's defaults. Pure; the runner opens the device (r-image/runner/plots.R).
 */
import type { ServiceConfig } from '../../../layers/config/service-config.ts';
import type { PlotsRequest } from '../../../layers/contract/execute.ts';

export interface PlotSettings {
  readonly format: 'png' | 'svg';
  readonly width: number;
  readonly height: number;
  readonly dpi: number;
}

export const PLOT_MIME_TYPES = { png: 'image/png', svg: 'image/svg+xml' } as const;

/** null: `plots: false`, or a deployment whose plot count cap is 0 (nothing could come back). */
export function resolvePlotSettings(request: PlotsRequest | undefined, defaults: ServiceConfig['plots']): PlotSettings | null {
  if (request === false || defaults.maxCount === 0) return null;
  const options = request === true || request === undefined ? {} : request;
  return {
    format: options.format ?? 'png',
    width: options.width ?? defaults.width,
    height: options.height ?? defaults.height,
    dpi: options.dpi ?? defaults.dpi,
  };
}
