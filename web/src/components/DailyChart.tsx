// A day-by-day chart (uPlot: small, canvas-drawn). A figure that is a total per day (calls,
// minutes, tokens) is drawn as bars, one a day; `kind="line"` draws a line instead. The numbers
// are also in a table beside it for screen readers, so the canvas itself is hidden from them.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  label: string;
  values: number[];
  color: string;
}

const HALF_DAY = 12 * 3600;

function seriesOptions(s: Series, kind: 'bars' | 'line', days: number): uPlot.Series {
  if (kind === 'line')
    return { label: s.label, stroke: s.color, width: 2, fill: `${s.color}18`, points: { show: days < 40 } };
  return {
    label: s.label,
    stroke: s.color,
    fill: `${s.color}cc`,
    width: 0,
    points: { show: false },
    paths: uPlot.paths.bars!({ size: [0.7, 48], align: 0 }),
  };
}

export function DailyChart({
  days,
  series,
  title,
  kind = 'bars',
}: {
  days: string[];
  series: Series[];
  title: string;
  kind?: 'bars' | 'line';
}) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const xs = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const width = () => Math.max(280, el.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height: 260,
        title: undefined,
        // Half a day either side, so the first and last bars are whole.
        scales: {
          x: { time: true, range: (_u, min, max) => [min - HALF_DAY, max + HALF_DAY] },
          y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
        },
        axes: [
          { stroke: '#596273', grid: { show: false } },
          { stroke: '#596273', grid: { stroke: '#eceef2' } },
        ],
        series: [{}, ...series.map((s) => seriesOptions(s, kind, days.length))],
      },
      [xs, ...series.map((s) => s.values)],
      el,
    );
    const observer = new ResizeObserver(() => plot.setSize({ width: width(), height: 260 }));
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [days, series, kind]);
  return <div ref={host} className="chart" role="img" aria-label={title} />;
}
