// Star catcher: an example game made with Phaser (from the npm registry,
// bundled by scripts/build-web.mjs) that talks to the platform through the
// kit for hosted games (docs/kit.md), imported as a game would import it
// from the SDK package. Stars fall for 20 seconds; each one the basket
// catches is worth 10. Each round is a run; its score is submitted at the
// end; the platform's events (a new best, an achievement, being passed)
// show as banners.
import Phaser from 'phaser'
import { ready } from '@ranking-service/sdk/platform'

// Drawn at twice the size it is shown at on most screens, so it stays sharp when the frame scales it up.
const WIDTH = 960
const HEIGHT = 640
const ROUND_MS = 20_000
const POINTS_PER_STAR = 10

class Play extends Phaser.Scene {
  constructor () {
    super('play')
  }

  init ({ platform }) {
    this.platform = platform
    this.score = 0
    this.playing = false
  }

  create () {
    // The pictures are drawn here, so the game has no files but its script.
    const draw = this.make.graphics({ x: 0, y: 0 }, false)
    draw.fillStyle(0xf5c542).fillCircle(16, 16, 16).generateTexture('star', 32, 32).clear()
    draw.fillStyle(0x60a5fa).fillRoundedRect(0, 0, 144, 28, 12).generateTexture('basket', 144, 28).destroy()

    this.basket = this.physics.add.image(WIDTH / 2, HEIGHT - 40, 'basket').setImmovable(true)
    this.basket.body.setAllowGravity(false)
    this.basket.setCollideWorldBounds(true)
    this.stars = this.physics.add.group()
    this.physics.add.overlap(this.basket, this.stars, (_basket, star) => {
      star.destroy()
      this.catchStar()
    })
    this.cursors = this.input.keyboard.createCursorKeys()
    this.input.on('pointermove', (pointer) => { if (this.playing) this.basket.x = Phaser.Math.Clamp(pointer.x, 72, WIDTH - 72) })

    const text = { fontFamily: 'system-ui, sans-serif', color: '#e5e7eb' }
    this.scoreText = this.add.text(24, 20, '', { ...text, fontSize: '36px' })
    this.timeText = this.add.text(WIDTH - 24, 20, '', { ...text, fontSize: '36px' }).setOrigin(1, 0)
    this.centre = this.add.text(WIDTH / 2, HEIGHT / 2 - 40, '', { ...text, fontSize: '44px', align: 'center', wordWrap: { width: WIDTH - 80 } }).setOrigin(0.5)
    this.banner = this.add.text(WIDTH / 2, 96, '', { ...text, fontSize: '32px', color: '#facc15', backgroundColor: '#1f2937', padding: { x: 20, y: 12 } }).setOrigin(0.5).setAlpha(0)

    const player = this.platform.player
    this.showIdle(player === null ? 'Star catcher\nLog in or play as a guest on the page to keep your score.' : `Hello ${player.name}!`)
    this.input.on('pointerdown', () => this.start())
    this.input.keyboard.on('keydown-SPACE', () => this.start())

    // The platform's news, as a banner over the play.
    const unsubscribe = [
      this.platform.on('best', ({ score, rank }) => this.say(`New best: ${this.platform.formatScore(score)}${rank === null ? '' : `, rank ${rank}`}!`)),
      this.platform.on('achievement', (item) => this.say(`Achievement unlocked: ${item.name}`)),
      this.platform.on('overtaken', ({ rank }) => this.say(`Someone passed you: number ${rank} now`))
    ]
    this.events.once('shutdown', () => unsubscribe.forEach(stop => stop()))
  }

  showIdle (line) {
    this.centre.setText(`${line}\n\nClick or press space to play`)
    this.scoreText.setText('')
    this.timeText.setText('')
  }

  start () {
    if (this.playing) return
    this.playing = true
    this.score = 0
    this.centre.setText('')
    // A run ties this round's score to its play, where the game keeps runs (docs/interface.md#runs).
    this.platform.startRun()
    this.endsAt = this.time.now + ROUND_MS
    this.spawner = this.time.addEvent({ delay: 450, loop: true, callback: () => this.dropStar() })
    this.time.delayedCall(ROUND_MS, () => this.endRound())
  }

  dropStar () {
    const star = this.stars.create(Phaser.Math.Between(32, WIDTH - 32), -20, 'star')
    star.setVelocityY(Phaser.Math.Between(220, 400))
  }

  catchStar () {
    if (!this.playing) return
    this.score += POINTS_PER_STAR
  }

  async endRound () {
    if (!this.playing) return
    this.playing = false
    this.spawner.remove()
    this.stars.clear(true, true)
    const shown = this.platform.formatScore(this.score)
    if (!this.platform.canSubmit) {
      this.showIdle(`Score ${shown}`)
      return
    }
    this.centre.setText(`Score ${shown}\nsending…`)
    const answer = await this.platform.submit(this.score)
    this.showIdle(answer.ok
      ? `Score ${shown}${answer.data.rank === null ? '' : ` — rank ${answer.data.rank}`}`
      : `Score ${shown} was not recorded: ${answer.message}`)
  }

  say (line) {
    this.banner.setText(line).setAlpha(1)
    this.tweens.killTweensOf(this.banner)
    this.tweens.add({ targets: this.banner, alpha: 0, delay: 4000, duration: 600 })
  }

  update () {
    if (!this.playing) return
    if (this.cursors.left.isDown) this.basket.x = Math.max(72, this.basket.x - 12)
    if (this.cursors.right.isDown) this.basket.x = Math.min(WIDTH - 72, this.basket.x + 12)
    for (const star of this.stars.getChildren()) if (star.y > HEIGHT + 20) star.destroy()
    this.scoreText.setText(`Score ${this.platform.formatScore(this.score)}`)
    this.timeText.setText(`${Math.max(0, Math.ceil((this.endsAt - this.time.now) / 1000))} s`)
  }
}

ready().then((platform) => {
  // Kept on window: the test suite (and a curious developer's console) drives the scene through it.
  window.game = new Phaser.Game({
    type: Phaser.AUTO,
    parent: 'game',
    backgroundColor: '#0b1021',
    scale: { mode: Phaser.Scale.FIT, autoCenter: Phaser.Scale.CENTER_BOTH, width: WIDTH, height: HEIGHT },
    physics: { default: 'arcade', arcade: { gravity: { x: 0, y: 0 } } },
    scene: []
  })
  window.game.scene.add('play', Play, true, { platform })
})
