// The play page: leaderboard, own rank, rating widget and play-time reports
// around the game's iframe. It reads what the server injected into
// window.__platform (gameId, username, playable, canSubmit, rating (a
// visitor's: the average), periods, order, format,
// boards, periodNames) and window.__play; window.RankingFormat formats scores.
(() => {
  'use strict'
  const platform = window.__platform
  const settings = window.__play
  const $ = (selector) => document.querySelector(selector)

  async function api (method, url, fields) {
    const init = { method, credentials: 'same-origin', headers: {} }
    if (fields !== undefined) init.body = new URLSearchParams(fields)
    const response = await fetch(url, init)
    return await response.json()
  }

  // Leaderboard, own rank and neighbourhood ---------------------------------
  // All on the board the switches chose: the game's own board ('') or one of
  // platform.boards (its named boards), and 'all' or one of the periods that
  // board keeps. The switches are only there for a game that has named boards
  // or calendar boards, and nothing remembers the choice.
  let board = ''
  let period = 'all'
  let resetsAt = null
  let latest = 0 // the newest refresh: the answers to an older one are dropped

  // A score as the board shown formats it (docs/interface.md#score-formats), in the viewer's locale:
  // /sdk/format.js (loaded before this script) does it; without it, the raw number.
  function shown (score) {
    const format = platform.boards.find(named => named.id === board)?.format ?? platform.format
    return window.RankingFormat === undefined ? String(score) : window.RankingFormat.formatScore(score, format)
  }

  function fillList (list, items) {
    list.replaceChildren()
    // Room for the widest rank beside the names: around a player, a rank can have five digits.
    const digits = String(items.at(-1)?.rank ?? '').length
    if (digits > 2) list.style.setProperty('--rank-digits', String(digits))
    else list.style.removeProperty('--rank-digits')
    for (const item of items) {
      const entry = document.createElement('li')
      entry.value = item.rank
      // <bdi>: a name in another script direction cannot reorder the score beside it.
      const name = document.createElement('bdi')
      name.textContent = item.player_name
      entry.append(name, ` — ${shown(item.score)}`)
      if (item.player_name === platform.username) entry.className = 'me'
      list.append(entry)
    }
  }

  // "5 h 12 min", rounded up: the board resets by then, by the browser's clock.
  function timeLeft (ms) {
    if (ms < 60_000) return 'less than a minute'
    const minutes = Math.ceil(ms / 60_000)
    if (minutes < 60) return `${minutes} min`
    if (minutes < 24 * 60) return `${Math.floor(minutes / 60)} h` + (minutes % 60 === 0 ? '' : ` ${minutes % 60} min`)
    const hours = Math.ceil(minutes / 60)
    const days = Math.floor(hours / 24)
    return `${days} day${days === 1 ? '' : 's'}` + (hours % 24 === 0 ? '' : ` ${hours % 24} h`)
  }

  function showResets () {
    const line = $('#board-resets')
    if (line === null) return
    line.hidden = resetsAt === null
    line.textContent = resetsAt === null ? '' : resetsAt > Date.now() ? `Resets in ${timeLeft(resetsAt - Date.now())}` : 'Resets now'
  }

  // With a switch, the headings say which board this is ("Top 10 — today"), in the chosen button's words.
  function boardName () {
    return $(`.board-switch button[data-period="${period}"]`)?.textContent.toLowerCase()
  }

  // The named board chosen, if any ({ id, name, periods, order }).
  const namedBoard = () => platform.boards.find(named => named.id === board)

  // The request's board choice, as a query: board and period, each only when chosen.
  function chosenQuery () {
    const fields = new URLSearchParams()
    if (board !== '') fields.set('board', board)
    if (period !== 'all') fields.set('period', period)
    return fields.toString()
  }

  function showBoard (answer) {
    const name = boardName()
    // "Top 10 — Lap 1, today": the named board's name, then the period's.
    const label = [namedBoard()?.name, name].filter(part => part !== undefined).join(', ')
    for (const suffix of document.querySelectorAll('.board-period')) suffix.textContent = label === '' ? '' : ` — ${label}`
    const when = period === 'all' ? '' : ` ${name}`
    fillList($('#board'), answer.ok ? answer.data.items : [])
    $('#board-status').textContent = !answer.ok
      ? answer.message
      : answer.data.total === 0 ? `No scores${when} yet: be the first.` : `${answer.data.total} player${answer.data.total === 1 ? '' : 's'}`
    resetsAt = answer.ok && answer.data.resets_at !== undefined ? Date.parse(answer.data.resets_at) : null
    showResets()
  }

  // The board is live: the service sends its top at once and again whenever
  // it changes (Server-Sent Events), and the browser reconnects by itself.
  // A stream the service refuses (too many open from this address) falls
  // back to reading the board once, and is tried again 5 s later.
  let stream = null
  const LIVE_RETRY_MS = 5000
  function watchBoard () {
    stream?.close()
    // Another board: a standing read for the one before is dropped, and the next read starts the comparison afresh.
    latest++
    lastRank = null
    ownChange = true
    const game = encodeURIComponent(platform.gameId)
    const query = chosenQuery()
    const chosen = query === '' ? '' : `?${query}`
    const watching = stream = new window.EventSource(`/play/${game}/live${chosen}`)
    watching.addEventListener('top', (event) => {
      if (watching !== stream) return
      showBoard({ ok: true, data: JSON.parse(event.data) })
      refreshStanding()
    })
    watching.addEventListener('error', async (event) => {
      if (watching !== stream) return
      const ended = event.data === undefined ? null : JSON.parse(event.data)
      if (ended !== null) showBoard(ended)
      if (watching.readyState !== window.EventSource.CLOSED) return
      // Refused (too many streams open from this address just now) or cut off: the board read once,
      // and the live board tried again in a while, unless the service said why it cannot be (a deleted board).
      showBoard(await api('GET', `/play/${game}/board${chosen}`))
      if (ended === null || ended.error === 'rate_limited' || ended.error === 'unavailable') {
        setTimeout(() => { if (watching === stream) watchBoard() }, LIVE_RETRY_MS)
      }
    })
  }

  // Events for the game (the kit, /sdk/platform.js, passes them on): overtaken, achievement.
  const listeners = { overtaken: new Set(), achievement: new Set() }
  platform.on = (type, listener) => {
    const set = listeners[type]
    if (set === undefined) return () => {}
    set.add(listener)
    return () => { set.delete(listener) }
  }
  function emit (type, detail) {
    for (const listener of listeners[type]) {
      try { listener(detail) } catch (error) { setTimeout(() => { throw error }) }
    }
  }
  // The player's rank on the board shown, as last read: a worse one read later, without a score of
  // their own between (ownChange), means someone passed them.
  let lastRank = null
  let ownChange = true

  // The player's own rank and neighbourhood, on the board the switch chose.
  async function refreshStanding () {
    const request = ++latest
    const game = encodeURIComponent(platform.gameId)
    const chosen = chosenQuery()
    const [mine, around] = await Promise.all([
      platform.username === null ? null : api('GET', `/api/rank?action=me-self&game_id=${game}${chosen && `&${chosen}`}`),
      $('#around') === null ? null : api('GET', `/api/rank?action=around-self&game_id=${game}&before=2&after=2${chosen && `&${chosen}`}`)
    ])
    if (request !== latest) return
    const when = period === 'all' ? '' : ` ${boardName()}`

    if (mine !== null) {
      const rank = mine.ok ? mine.data.rank : null
      if (!ownChange && rank !== null && lastRank !== null && rank > lastRank) emit('overtaken', { rank, previous: lastRank, board: board === '' ? 'default' : board })
      lastRank = rank
      ownChange = false
      $('#my-rank').textContent = !mine.ok
        ? mine.message
        : mine.data.best_score === null
          ? `You have no score${when} yet.`
          : `Your best${when}: ${shown(mine.data.best_score)}, rank ${mine.data.rank ?? '(hidden)'} of ${mine.data.total_players}`
    }
    if (around !== null) {
      const you = around.ok ? around.data.player : null
      // A player the top list shows already needs no neighbourhood: on a small board it would repeat the list.
      const onTop = you !== null && you.rank !== null && you.rank <= $('#board').children.length
      fillList($('#around'), around.ok && !onTop ? around.data.items : [])
      $('#around').hidden = onTop
      $('#around-status').textContent = !around.ok
        ? around.message
        : you.rank === null
          ? (you.best_score === null ? 'Play a round to see the players around you.' : 'Your score is hidden from this board.')
          : onTop
            ? `You are number ${you.rank}${when}, on the board above.`
            // 2 decimals from the server; below 0.01 it is still within the top 0.01%. The back half reads better as a rank.
            : you.top_percent <= 50
              ? `You are in the top ${Math.max(you.top_percent, 0.01)}%${when}.`
              : `You are number ${you.rank} of ${around.data.total}${when}.`
    }
  }

  // The board switches: which board (a select), and which period of it (buttons that say which one is pressed)
  function wirePeriods () {
    const buttons = document.querySelectorAll('.board-switch button')
    for (const button of buttons) {
      button.addEventListener('click', () => {
        if (button.dataset.period === period) return
        period = button.dataset.period
        for (const other of buttons) other.setAttribute('aria-pressed', String(other === button))
        watchBoard()
      })
    }
  }

  // The period buttons of the board chosen: its own periods (a named board keeps its own), none without.
  function periodButtons () {
    const group = $('.board-switch')
    if (group === null) return
    const periods = namedBoard()?.periods ?? platform.periods
    group.replaceChildren(...(periods.length === 0 ? [] : ['all', ...periods]).map(kind => {
      const button = document.createElement('button')
      button.type = 'button'
      button.dataset.period = kind
      button.setAttribute('aria-pressed', String(kind === 'all'))
      button.setAttribute('aria-controls', 'board')
      button.textContent = platform.periodNames[kind]
      return button
    }))
    group.hidden = periods.length === 0
    wirePeriods()
  }

  function buildSwitch () {
    wirePeriods()
    $('#board-choice')?.addEventListener('change', (event) => {
      board = event.currentTarget.value
      period = 'all'
      periodButtons()
      watchBoard()
    })
    // The reset line counts down; once the period is over, the stream moves on to the new one.
    if ($('.board-switch') !== null) setInterval(showResets, 30_000)
  }

  // Rating: ten half-star buttons, 1..10 -------------------------------------
  function showRating (data) {
    // The stars are the player's own rating: none lit until they rate (the average is in the sentence below).
    for (const button of document.querySelectorAll('.stars button')) {
      const value = Number(button.dataset.value)
      button.classList.toggle('on', data.mine !== null && value <= data.mine)
      button.setAttribute('aria-checked', String(data.mine === value))
    }
    // Nothing to remove before the player rates.
    const clear = $('#rating-clear')
    if (clear !== null) clear.hidden = data.mine === null
    $('#rating-summary').textContent = data.count === 0
      ? 'No ratings yet.'
      // The weighted score first (each rating weighs by its rater's play: docs/ratings.md), then v1's plain average.
      : `${typeof data.weighted === 'number' ? `Score ${(data.weighted / 2).toFixed(1)} of 5, weighted by play. ` : ''}` +
        `Average ${(data.avg / 2).toFixed(2)} stars from ${data.count} rating${data.count === 1 ? '' : 's'}` +
        (data.mine === null ? '' : `; yours: ${data.mine / 2}`)
  }

  async function loadRating () {
    // A visitor: the average the page was given (there are no stars to press).
    if (platform.username === null) {
      if (platform.rating !== null) showRating(platform.rating)
      return
    }
    const rating = await api('GET', `/api/rate?game_id=${encodeURIComponent(platform.gameId)}`)
    if (rating.ok) showRating(rating.data)
  }

  function buildStars () {
    const stars = $('.stars')
    if (stars === null) return
    for (let value = 1; value <= 10; value++) {
      const button = document.createElement('button')
      button.type = 'button'
      button.dataset.value = String(value)
      button.setAttribute('role', 'radio')
      button.setAttribute('aria-label', `${value / 2} stars`)
      button.className = value % 2 === 1 ? 'half-left' : 'half-right'
      const glyph = document.createElement('span')
      glyph.textContent = '★'
      glyph.setAttribute('aria-hidden', 'true')
      button.append(glyph)
      button.addEventListener('click', async () => {
        const result = await api('POST', `/api/rate?game_id=${encodeURIComponent(platform.gameId)}`, { stars: String(value) })
        if (result.ok) showRating(result.data)
        else $('#rating-summary').textContent = result.message
      })
      stars.append(button)
    }
    $('#rating-clear')?.addEventListener('click', async () => {
      const result = await api('DELETE', `/api/rate?game_id=${encodeURIComponent(platform.gameId)}`)
      if (!result.ok) return
      showRating(result.data)
      // The button is gone: the keyboard's place moves to the stars, not to the page's start.
      $('.stars button')?.focus()
    })
  }

  // Play time: counted only while the page is visible ------------------------
  // Runs (docs/interface.md#runs): the game starts one through the page, which
  // reports play time for it, and reports at once before the game submits.
  let run = null
  let reportNow = async () => null

  platform.startRun = async () => {
    const started = await api('POST', '/api/rank?action=run-start-self', { game_id: platform.gameId })
    run = started.ok ? started.data : null
    return run
  }
  platform.reportPlay = async () => await reportNow()

  function startPlaytime () {
    if (platform.username === null) return
    let visibleMs = 0
    let visibleSince = document.visibilityState === 'visible' ? performance.now() : null
    const settle = () => {
      if (visibleSince !== null) {
        const now = performance.now()
        visibleMs += now - visibleSince
        visibleSince = now
      }
    }
    document.addEventListener('visibilitychange', () => {
      settle()
      visibleSince = document.visibilityState === 'visible' ? performance.now() : null
    })
    reportNow = async () => {
      settle()
      const seconds = Math.min(300, Math.floor(visibleMs / 1000))
      if (seconds < 1) return null
      visibleMs -= seconds * 1000
      const fields = { game_id: platform.gameId, seconds: String(seconds) }
      let report = await api('POST', '/api/playtime', run === null ? fields : { ...fields, run_id: run.run_id })
      // A run past its time (or closed) no longer counts play: the play time still does.
      if (!report.ok && report.error === 'invalid_run') {
        run = null
        report = await api('POST', '/api/playtime', fields)
      }
      if (report.ok) {
        $('#playtime').textContent = `You played ${report.data.user_playtime_seconds} s here; everyone: ${report.data.total_playtime_seconds} s.`
      }
      return report.ok ? report.data : null
    }
    setInterval(reportNow, settings.playtimeReportMs)
  }

  // Logging in happens on /login, away from the game; logging out in the header (public/site.js).

  // A platform that frames this page signs its player in with a token it
  // signed, after the # (docs/signin.md#in-a-frame): the page's first script
  // took it out of the address, and kept it only inside a frame (a link to a
  // page with someone's token signs nobody in).
  const token = window.__signinToken
  if (token === false) {
    $('#signin-status').textContent = 'A sign-in token works only inside the platform\'s page; nobody was signed in.'
  } else if (typeof token === 'string') {
    api('POST', '/auth/token', { token }).then((result) => {
      if (!result.ok) $('#signin-status').textContent = `Sign-in failed: ${result.message}`
      else if (result.data.username !== platform.username) window.location.reload()
    }, () => { $('#signin-status').textContent = 'Sign-in failed: the service could not be reached.' })
  }

  // Playing as a guest: a session at once, for a game that takes guests.
  $('#play-as-guest')?.addEventListener('click', async () => {
    const made = await api('POST', '/auth/guest', { game_id: platform.gameId })
    if (made.ok) window.location.reload()
    else $('#guest-status').textContent = made.message
  })

  // Achievements: a toast when the player unlocks one ------------------------
  // The page knows what the player had; after each score the game reports, it
  // reads the list again and shows what is new (docs/interface.md#achievements).
  // One read at a time, in order: the first is what the player had, each later one shows what is new.
  let unlockedIds = null
  let checking = Promise.resolve()
  function checkAchievements () {
    if (platform.username === null || !platform.achievements) return
    checking = checking.then(readAchievements).catch(() => {})
  }
  async function readAchievements () {
    const answer = await api('GET', `/api/rank?action=achievements-self&game_id=${encodeURIComponent(platform.gameId)}`)
    if (!answer.ok) return
    const unlocked = answer.data.items.filter(item => item.unlocked_at !== null)
    if (unlockedIds !== null) {
      for (const item of unlocked) {
        if (unlockedIds.has(item.achievement_id)) continue
        showToast(item)
        emit('achievement', item)
      }
    }
    unlockedIds = new Set(unlocked.map(item => item.achievement_id))
  }

  function showToast (item) {
    const toast = document.createElement('div')
    toast.className = 'toast'
    if (item.icon_url !== null) {
      const icon = document.createElement('img')
      icon.src = item.icon_url
      icon.alt = ''
      icon.width = 40
      icon.height = 40
      toast.append(icon)
    }
    const text = document.createElement('p')
    const title = document.createElement('strong')
    title.textContent = item.name
    text.append('Achievement unlocked: ', title, item.points > 0 ? ` (+${item.points})` : '')
    toast.append(text)
    $('#toasts').append(toast)
    setTimeout(() => { toast.remove() }, 8000)
  }

  // The game tells the page when it has submitted a score (or unlocked an achievement): through the
  // kit's refresh(), or by posting ranking:submitted as games did before the kit.
  platform.refresh = () => {
    ownChange = true
    refreshStanding()
    checkAchievements()
  }
  window.addEventListener('message', (event) => {
    if (event.origin === window.location.origin && event.data?.type === 'ranking:submitted') platform.refresh()
  })

  // A game with Game Jolt's API on (docs/gamejolt.md#hosted-builds): its
  // frame waits (data-src) until the Game Jolt worker controls the game's
  // folder, so the game's first call to Game Jolt already reaches this
  // service. navigator.serviceWorker.ready never resolves for a scope that
  // does not hold this page, so the registration's own worker is watched.
  // Without service workers (not a secure context) or when the registration
  // fails, the game loads anyway: its calls to Game Jolt then go to Game Jolt.
  const WORKER_WAIT_MS = 10_000
  async function gamejoltWorker (scope) {
    const registration = await navigator.serviceWorker.register('/gamejolt-worker.js', { scope })
    if (registration.active !== null) return
    const worker = registration.installing ?? registration.waiting
    if (worker === null) throw new Error('the registration has no worker')
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => { reject(new Error(`no active worker after ${WORKER_WAIT_MS} ms`)) }, WORKER_WAIT_MS)
      worker.addEventListener('statechange', () => {
        if (worker.state === 'activated') resolve()
        else if (worker.state === 'redundant') reject(new Error('the worker was discarded'))
        else return
        clearTimeout(timer)
      })
    })
  }
  const frame = $('#game')
  const gameFolder = /^\/games\/[^/?]+\//.exec(frame?.getAttribute('src') ?? '')?.[0]
  if (gameFolder !== undefined && navigator.serviceWorker !== undefined) {
    // The API turned off since this browser last played the game: its worker goes (from the next visit on).
    navigator.serviceWorker.getRegistration(gameFolder).then((registration) => {
      if (registration?.scope === new URL(gameFolder, window.location.href).href) return registration.unregister()
    }).catch(() => {})
  }
  if (frame?.dataset.gamejoltScope !== undefined) {
    const start = () => { frame.src = frame.dataset.src }
    // The worker tells this page when the game added a score or unlocked a trophy through Game Jolt's API.
    navigator.serviceWorker?.addEventListener('message', (event) => {
      if (event.data?.type === 'ranking:submitted') platform.refresh()
    })
    navigator.serviceWorker?.startMessages()
    if (navigator.serviceWorker === undefined) {
      console.warn('Game Jolt API: this page is not a secure context (HTTPS or localhost), so the game\'s calls to Game Jolt are not sent to this service.')
      start()
    } else {
      gamejoltWorker(frame.dataset.gamejoltScope).then(start, (error) => {
        console.warn(`Game Jolt API: the worker that sends the game's calls to this service could not start (${error.message}).`)
        start()
      })
    }
  }

  buildSwitch()
  buildStars()
  // A game not approved yet has no board to watch, ratings or play time (the page says so).
  if (platform.playable) {
    watchBoard()
    loadRating()
    startPlaytime()
    checkAchievements()
  }
  // The kit's ready() waits for this: every member of __platform is set.
  platform.ready = true
})()
