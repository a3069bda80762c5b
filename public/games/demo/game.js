// Reaction: three rounds; each round scores 1000 minus the reaction time in ms
// (0 for a click before green). The total goes to submit-self with the
// player's session cookie, as a game hosted on the platform does; on a game
// that keeps runs, with the run the play page started for it, after the page
// has reported the play since its last report (docs/interface.md#runs).
(() => {
  'use strict'
  const platform = window.parent === window ? null : window.parent.__platform
  const canvas = document.getElementById('canvas')
  const context = canvas.getContext('2d')
  const target = document.getElementById('target')
  const status = document.getElementById('status')
  const result = document.getElementById('result')
  const ROUNDS = 3
  let round = 0
  let total = 0
  let greenAt = 0
  let timer = null
  let run = null

  const keepsRuns = () => platform !== null && platform.canSubmit && platform.runs !== undefined && platform.runs !== 'off' && typeof platform.startRun === 'function'

  function draw (color, text) {
    context.fillStyle = color
    context.fillRect(0, 0, canvas.width, canvas.height)
    context.fillStyle = '#fff'
    context.font = '20px system-ui, sans-serif'
    context.textAlign = 'center'
    context.fillText(text, canvas.width / 2, canvas.height / 2 + 7)
  }

  function setState (state, label) {
    target.dataset.state = state
    target.textContent = label
  }

  function nextRound () {
    setState('wait', 'Wait…')
    draw('#b91c1c', `Round ${round + 1} of ${ROUNDS}: wait for green`)
    timer = setTimeout(() => {
      greenAt = performance.now()
      setState('go', 'Click!')
      draw('#16a34a', 'NOW!')
    }, 700 + Math.random() * 1500)
  }

  async function submit (score) {
    if (platform === null || !platform.username) {
      result.textContent = `Score ${score}. Log in on the play page to record it.`
      return
    }
    if (!platform.canSubmit) {
      result.textContent = `Score ${score}. This game does not accept scores right now.`
      return
    }
    const body = new URLSearchParams({ game_id: platform.gameId, score: String(score), meta: JSON.stringify({ rounds: ROUNDS }) })
    if (run !== null) {
      await platform.reportPlay()
      body.set('run_id', run.run_id)
      run = null
    }
    const response = await fetch('/api/rank?action=submit-self', { method: 'POST', body, credentials: 'include' })
    const answer = await response.json()
    if (!answer.ok) {
      result.textContent = `Score ${score} was not recorded: ${answer.message}`
      return
    }
    const { improved, best_score: best, rank, held } = answer.data
    result.textContent = held === true
      ? `Score ${score}: held for review (more than this round's play explains).`
      : `Score ${score}. ${improved ? 'New best!' : `Your best is ${best}.`}${rank === null ? '' : ` Rank ${rank}.`}`
    window.parent.postMessage({ type: 'ranking:submitted', score }, window.location.origin)
  }

  target.addEventListener('click', () => {
    const state = target.dataset.state
    if (state === 'idle' || state === 'done') {
      round = 0
      total = 0
      result.textContent = ''
      if (keepsRuns()) platform.startRun().then(started => { run = started }, () => { run = null })
      nextRound()
    } else if (state === 'wait') {
      clearTimeout(timer)
      status.textContent = `Too early! Round ${round + 1} scores 0.`
      finishRound(0)
    } else if (state === 'go') {
      const ms = Math.round(performance.now() - greenAt)
      status.textContent = `${ms} ms`
      finishRound(Math.max(0, 1000 - ms))
    }
  })

  function finishRound (points) {
    total += points
    round++
    if (round < ROUNDS) {
      nextRound()
      return
    }
    setState('done', 'Play again')
    draw('#1d4ed8', `Score: ${total}`)
    submit(total)
  }

  draw('#374151', platform?.username ? `Hello ${platform.username}!` : 'Reaction')
})()
