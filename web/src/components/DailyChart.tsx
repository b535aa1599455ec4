// A day-by-day chart (uPlot: small, canvas-drawn). The numbers are also in a table beside it
// for screen readers, so the canvas itself is hidden from them.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  label: string;
  values: number[];
  color: string;
}

export function DailyChart({ days, series, title }: { days: string[]; series: Series[]; title: string }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const xs = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const width = () => Math.max(320, el.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height: 260,
        title: undefined,
        scales: { x: { time: true } },
        axes: [
          { stroke: '#596273', grid: { stroke: '#eceef2' } },
          { stroke: '#596273', grid: { stroke: '#eceef2' } },
        ],
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: s.color,
            width: 2,
            fill: `${s.color}18`,
            points: { show: days.length < 40 },
          })),
        ],
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
  }, [days, series]);
  return <div ref={host} className="chart" role="img" aria-label={title} />;
}
