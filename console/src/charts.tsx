import { useEffect, useRef } from 'preact/hooks'
import { BarController, BarElement, CategoryScale, Chart, Filler, LineController, LineElement, LinearScale, PointElement, Tooltip, type ChartConfiguration } from 'chart.js'

// Only what the console draws, so the bundle carries no more of Chart.js.
Chart.register(BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Tooltip, Filler)
Chart.defaults.font.family = getComputedStyle(document.documentElement).getPropertyValue('--font').trim() || 'system-ui, sans-serif'
Chart.defaults.color = '#3d4451'

export interface Series { labels: string[], values: number[] }

/**
 * One chart: a canvas drawn by Chart.js, with a sentence for screen readers
 * (`summary`) since a canvas says nothing by itself. Redrawn in place when
 * the data changes (no animation, so a refresh does not jump).
 */
export function ChartBox ({ id, title, kind, series, summary, unit = '', color = '#1f5fbf' }: { id: string, title: string, kind: 'bar' | 'line', series: Series, summary: string, unit?: string, color?: string }) {
  const canvas = useRef<HTMLCanvasElement>(null)
  const chart = useRef<Chart | null>(null)
  useEffect(() => {
    if (canvas.current === null) return
    const config: ChartConfiguration = {
      type: kind,
      data: { labels: series.labels, datasets: [{ label: title, data: series.values, backgroundColor: kind === 'bar' ? color : `${color}33`, borderColor: color, fill: kind === 'line', pointRadius: 2, tension: 0.2 }] },
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
  }, [series, kind, title])
  useEffect(() => () => { chart.current?.destroy() }, [])
  return (
    <figure class='chart card' aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`}>{title}</figcaption>
      <div class='canvas-box'><canvas id={id} ref={canvas} role='img' aria-label={`${title}: ${summary}`} /></div>
      <p class='muted small'>{summary}</p>
    </figure>
  )
}
