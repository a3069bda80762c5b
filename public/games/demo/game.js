// Reaction: three rounds; each round scores 1000 minus the reaction time in ms
// (0 for a click before green). It talks to the platform through the kit for
// hosted games (/sdk/platform.js, docs/kit.md): who plays, a run as play
// begins where the game keeps runs, the total submitted at the end, and the
// platform's events (a new best, an achievement, someone passing the player)
// shown as in-game messages.
(async () => {
  'use strict'
  const platform = await window.RankingPlatform.ready()
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
  const message = document.getElementById('message')

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
    const shown = platform.formatScore(score)
    if (platform.player === null) {
      result.textContent = `Score ${shown}. Log in on the play page to record it.`
      return
    }
    if (!platform.canSubmit) {
      result.textContent = `Score ${shown}. This game does not accept scores right now.`
      return
    }
    const answer = await platform.submit(score, { meta: { rounds: ROUNDS } })
    if (!answer.ok) {
      result.textContent = `Score ${shown} was not recorded: ${answer.message}`
      return
    }
    const { improved, best_score: best, rank, held } = answer.data
    result.textContent = held === true
      ? `Score ${shown}: held for review (more than this round's play explains).`
      : `Score ${shown}. ${improved ? 'New best!' : `Your best is ${platform.formatScore(best)}.`}${rank === null ? '' : ` Rank ${rank}.`}`
  }

  // The platform's news, as a message in the game.
  let hideMessage = null
  function say (text) {
    message.textContent = text
    clearTimeout(hideMessage)
    hideMessage = setTimeout(() => { message.textContent = '' }, 6000)
  }
  platform.on('best', ({ score, rank }) => say(`New best: ${platform.formatScore(score)}${rank === null ? '' : `, rank ${rank}`}!`))
  platform.on('achievement', (item) => say(`Achievement unlocked: ${item.name}`))
  platform.on('overtaken', ({ rank }) => say(`Someone passed you: you are number ${rank} now.`))

  target.addEventListener('click', () => {
    const state = target.dataset.state
    if (state === 'idle' || state === 'done') {
      round = 0
      total = 0
      result.textContent = ''
      // A game that keeps runs ties the score to this play (docs/interface.md#runs); the kit keeps the run.
      platform.startRun()
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

  draw('#374151', platform.player === null ? 'Reaction' : `Hello ${platform.player.name}!`)
})()
