// How busy the box is apart from this run. The box is shared, so the harness
// waits for quiet before each scenario and flags the figures of a scenario
// during which other processes (or the hypervisor) took CPU time.
import { readFileSync, readdirSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { fmt } from './format.mjs'
import { children } from './processes.mjs'

/** Other processes' CPU use (in CPUs) from which a scenario's figures are flagged as disturbed. */
export const DISTURBED = 0.2

/** Every process: pid, process group and CPU used so far (utime + stime, clock ticks). */
function processTable () {
  const table = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ') // from field 3, state
      table.push({ pid: Number(entry), pgrp: Number(fields[2]), ticks: Number(fields[11]) + Number(fields[12]) })
    } catch {}
  }
  return table
}

/** Processes in the service's process group (1 without node:cluster). */
export function processCount (leader) {
  return processTable().filter(entry => entry.pgrp === leader.pid).length
}

/**
 * The box's busy CPU time and the part of it used by this run (the harness
 * and every process group it started), in clock ticks (USER_HZ = 100).
 */
export function cpuSnapshot () {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
  const names = new Map([...children].map(child => [child.pid, child.benchName]))
  let ours = 0
  const byName = { client: 0 } // the harness (autocannon runs in it), then each started group by name
  for (const entry of processTable()) {
    if (entry.pid === process.pid) byName.client += entry.ticks
    else if (names.has(entry.pgrp)) byName[names.get(entry.pgrp)] = (byName[names.get(entry.pgrp)] ?? 0) + entry.ticks
    else continue
    ours += entry.ticks
  }
  return { busy: user + nice + system + irq + softirq, steal, ours, byName, at: performance.now() }
}

/** CPU time (µs) per request of the harness and each started process group between two snapshots. */
export function cpuPerRequest (before, after, requests) {
  const perRequest = {}
  for (const [name, ticks] of Object.entries(after.byName)) {
    perRequest[name] = (ticks - (before.byName[name] ?? 0)) * 10_000 / Math.max(1, requests) // a tick is 10 ms
  }
  return perRequest
}

/** CPUs' worth of time used by processes that are not part of this run (and stolen by the hypervisor). */
export function otherCpu (before, after) {
  const seconds = (after.at - before.at) / 1000
  return {
    others: Math.max(0, (after.busy - before.busy) - (after.ours - before.ours)) / 100 / seconds,
    steal: (after.steal - before.steal) / 100 / seconds
  }
}

/** Whether a scenario's figures are not representative (other CPU as measured by otherCpu). */
export const disturbed = (cpu) => cpu.others + cpu.steal >= DISTURBED

/**
 * Waits (up to maxSeconds) until processes outside this run use less than
 * DISTURBED CPUs, so a scenario does not start while the box is busy.
 * Returns the seconds waited, or -1 when it gave up.
 */
export async function waitForQuiet (maxSeconds) {
  if (!(maxSeconds > 0)) return 0
  const start = Date.now()
  let said = false
  for (;;) {
    const before = cpuSnapshot()
    await sleep(700)
    const { others, steal } = otherCpu(before, cpuSnapshot())
    const waited = (Date.now() - start) / 1000
    if (others + steal < DISTURBED) return waited
    if (waited >= maxSeconds) {
      console.log(`bench:   (gave up waiting for the box to quiet down after ${fmt(waited, 0)} s)`)
      return -1
    }
    if (!said) console.log(`bench:   (other processes use ${fmt(others + steal)} CPUs; waiting up to ${maxSeconds} s for them to finish)`)
    said = true
    await sleep(1000)
  }
}
