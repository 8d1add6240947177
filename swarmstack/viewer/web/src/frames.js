// Frames of a recording, fetched a chunk at a time (api/chunk/K) and kept in a small cache.
// A frame is fixed-size (header.frame.frame_bytes): int32 tick, float32[N, 6] poses, uint8[K, 3]
// LED colours; the arrays are views on the chunk's bytes, never copies.

const CACHE_CHUNKS = 12;

export class Frames {
  constructor(header) {
    this.header = header;
    this.fb = header.frame.frame_bytes;
    this.cf = header.chunk_frames;
    const fields = Object.fromEntries(header.frame.fields.map((f) => [f.name, f]));
    this.poseOff = fields.pose.offset;
    this.ledsOff = fields.leds.offset;
    this.raysOff = fields.rays ? fields.rays.offset : 0;
    this.r = header.rays ?? 0;
    this.n = header.robots;
    this.k = header.leds;
    this.chunks = new Map(); // k -> {buf, frames}
    this.pending = new Map(); // k -> promise
    this.total = 0;
  }

  setStatus(st) {
    this.total = st.frames;
  }

  // the chunk as far as it goes; a chunk still being filled (live) is fetched again when a
  // frame beyond what we hold is asked for
  async chunk(k, need) {
    const have = this.chunks.get(k);
    if (have && have.frames > need) {
      this.chunks.delete(k); this.chunks.set(k, have); // most recently used last
      return have;
    }
    if (!this.pending.has(k)) {
      // a chunk still being filled: only the frames after those held are fetched
      const from = have ? have.frames : 0;
      const p = fetch(`api/chunk/${k}?from=${from}`, { cache: 'no-store' })
        .then((r) => (r.ok ? r.arrayBuffer() : null))
        .then((more) => {
          this.pending.delete(k);
          if (!more) return null;
          let buf = more;
          if (from > 0) {
            const whole = new Uint8Array(from * this.fb + more.byteLength);
            whole.set(new Uint8Array(have.buf, 0, from * this.fb));
            whole.set(new Uint8Array(more), from * this.fb);
            buf = whole.buffer;
          }
          const entry = { buf, frames: Math.floor(buf.byteLength / this.fb) };
          this.chunks.set(k, entry);
          while (this.chunks.size > CACHE_CHUNKS) this.chunks.delete(this.chunks.keys().next().value);
          return entry;
        })
        .catch(() => { this.pending.delete(k); return null; });
      this.pending.set(k, p);
    }
    return this.pending.get(k);
  }

  view(entry, i) {
    const off = i * this.fb;
    return {
      tick: new Int32Array(entry.buf, off, 1)[0],
      pose: new Float32Array(entry.buf, off + this.poseOff, this.n * 6),
      leds: new Uint8Array(entry.buf, off + this.ledsOff, this.k * 3),
      rays: new Uint8Array(entry.buf, off + this.raysOff, this.r),
    };
  }

  async get(f) {
    const k = Math.floor(f / this.cf), i = f % this.cf;
    const entry = await this.chunk(k, i);
    if (!entry || entry.frames <= i) return null;
    return this.view(entry, i);
  }

  // a frame only if its chunk is already held (trails draw what is at hand)
  cached(f) {
    const entry = this.chunks.get(Math.floor(f / this.cf));
    const i = f % this.cf;
    return entry && entry.frames > i ? this.view(entry, i) : null;
  }
}
