/**
 * What the fake speech synthesis models "say": a WAV whose length follows the text and the speed
 * asked for (0.3 s a word at speed 1), a 150 Hz buzz with one swell per word, so tests can check
 * lengths and the analysis finds voiced speech in it. Rendered by the OpenAI-compatible fake's
 * `/v1/audio/speech` and Replicate's `lucataco/xtts-v2`.
 */
export const FAKE_TTS_SAMPLE_RATE = 24_000;
export const FAKE_SECONDS_PER_WORD = 0.3;

export function fakeSpeechWav(text: string, speed = 1): Buffer {
  const words = Math.max(1, text.trim().split(/\s+/).length);
  const perWord = Math.round((FAKE_SECONDS_PER_WORD / speed) * FAKE_TTS_SAMPLE_RATE);
  const n = words * perWord;
  const pcm = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) {
    const swell = Math.sin((Math.PI * (i % perWord)) / perWord);
    let v = 0;
    for (let h = 1; h <= 5; h++) v += Math.sin((2 * Math.PI * 150 * h * i) / FAKE_TTS_SAMPLE_RATE) / h;
    pcm.writeInt16LE(Math.round(v * swell * 0.3 * 32767 * 0.6), i * 2);
  }
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write("WAVEfmt ", 8, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(FAKE_TTS_SAMPLE_RATE, 24);
  header.writeUInt32LE(FAKE_TTS_SAMPLE_RATE * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}
