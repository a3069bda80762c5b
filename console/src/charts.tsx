import { useEffect, useRef } from 'preact/hooks'
import { BarController, BarElement, CategoryScale, Chart, Filler, LineController, LineElement, LinearScale, PointElement, Tooltip, type ChartConfiguration } from 'chart.js'

// Only what the console draws, so the bundle carries no more of Chart.js.
Chart.register(BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Tooltip, Filler)
Chart.defaults.font.family = getComputedStyle(document.documentElement).getPropertyValue('--font').trim() || 'system-ui, sans-serif'
Chart.defaults.color = '#3d4451'

export interface Series { labels: string[], values: Array<number | null> }
/** A second line drawn over the first (dashed), with its name in a legend under the title. */
export interface SecondSeries { label: string, values: Array<number | null>, color: string, firstLabel: string }

/**
 * One chart: a canvas drawn by Chart.js, with a sentence for screen readers
 * (`summary`) since a canvas says nothing by itself. Redrawn in place when
 * the data changes (no animation, so a refresh does not jump).
 */
export function ChartBox ({ id, title, kind, series, second, summary, unit = '', color = '#1f5fbf' }: { id: string, title: string, kind: 'bar' | 'line', series: Series, second?: SecondSeries, summary: string, unit?: string, color?: string }) {
  const canvas = useRef<HTMLCanvasElement>(null)
  const chart = useRef<Chart | null>(null)
  useEffect(() => {
    if (canvas.current === null) return
    const config: ChartConfiguration = {
      type: kind,
      data: {
        labels: series.labels,
        datasets: [
          { label: title, data: series.values, backgroundColor: kind === 'bar' ? color : `${color}33`, borderColor: color, fill: kind === 'line' && second === undefined, pointRadius: 2, tension: 0.2, spanGaps: true },
          ...(second === undefined ? [] : [{ type: 'line' as const, label: second.label, data: second.values, borderColor: second.color, backgroundColor: second.color, borderDash: [6, 4], fill: false, pointRadius: 0, tension: 0.2, spanGaps: true }])
        ]
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        responsive: true,
        scales: { y: { beginAtZero: true, ticks: { precision: 0, callback: value => `${value}${unit}` } }, x: { ticks: { maxRotation: 0, autoSkipPadding: 12 } } },
        plugins: { tooltip: { callbacks: { label: item => `${item.formattedValue}${unit}` } } }
      }
    }
    if (chart.current === null) {
      chart.current = new Chart(canvas.current, config)
    } else {
      chart.current.data = config.data
      chart.current.update()
    }
  }, [series, second, kind, title])
  useEffect(() => () => { chart.current?.destroy() }, [])
  return (
    <figure class='chart card' aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`}>{title}</figcaption>
      {second !== undefined && (
        <p class='legend small' aria-hidden='true'><span style={{ borderColor: color }} class='swatch' /> {second.firstLabel} <span style={{ borderColor: second.color }} class='swatch dashed' /> {second.label}</p>
      )}
      <div class='canvas-box'><canvas id={id} ref={canvas} role='img' aria-label={`${title}: ${summary}`} /></div>
      <p class='muted small'>{summary}</p>
    </figure>
  )
}
