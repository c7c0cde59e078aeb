/**
 * The seam between the clip and thumbnail pipelines and a vision model. The pipeline samples frames
 * (JPEG files on disk, already scaled down: detectors do not need full resolution) and asks the
 * engine what is in each; it never runs a detector on every frame of a video.
 *
 * Boxes are normalised to the frame (0..1, origin top left) so the pipeline can map them onto any
 * rendition of the source.
 */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface FaceObservation {
  box: Box;
  /** Detector confidence 0..1. */
  score: number;
  /** Mouth opening 0..1 from the face mesh (lip gap over face height, scaled); null when the mesh is unavailable. */
  mouthOpen: number | null;
  /** Head turn left/right in degrees (0: facing the camera); null when unknown. */
  yawDeg: number | null;
  /** Both eyes open, when the model can tell; null when unknown. */
  eyesOpen: boolean | null;
}

export interface BodyObservation {
  box: Box;
  score: number;
}

export interface FrameObservation {
  /** The frame's time in the source, seconds. */
  t: number;
  faces: FaceObservation[];
  bodies: BodyObservation[];
  /** The most visually salient region (edges and contrast), whatever the detectors found. */
  salient: Box | null;
  /**
   * For a frame of a sequence (AnalyzeOptions.sequence): true when its faces were followed from the
   * previous frame rather than found by the face detector on this one.
   */
  followed?: boolean;
}

export interface SampledFrame {
  /** Seconds into the source. */
  t: number;
  /** A JPEG or PNG file on disk. */
  path: string;
}

export interface AnalyzeOptions {
  signal: AbortSignal;
  /**
   * Whether to look for bodies and tell whether eyes are open (default: yes). A caller that reads
   * neither (the crop follows faces and mouths) says so, and an engine may skip those models: in
   * local-human they are more than half of each frame's time. Skipped, `bodies` is empty and
   * `eyesOpen` null.
   */
  bodies?: boolean;
  eyes?: boolean;
  /**
   * Frames given the same key are consecutive samples of one video, given in time order (a chosen
   * moment's dense frames). An engine may then follow the faces it found on one frame into the next
   * instead of running its face detector on every frame, detecting anew when the picture changes (a
   * cut), after a gap, and at least every few frames. A face that enters the shot without a cut
   * may then be seen a few frames late. Without a key every frame is detected on its own.
   */
  sequence?: string;
}

export interface VisionEngine {
  readonly engine: string;
  /** The models that made the observations, recorded on the result (e.g. `blazeface+facemesh`). */
  readonly model: string;
  /**
   * Frames the engine works on at once (several threads, or decoding one frame while detecting
   * another); a caller feeding frames one at a time keeps this many calls in flight. Default 1.
   */
  readonly parallelism?: number;
  /** Analyses frames in order; one observation per frame, same order. */
  analyze(frames: readonly SampledFrame[], opts: AnalyzeOptions): Promise<FrameObservation[]>;
  /** Frees models and workers; the engine is unusable afterwards. */
  close(): Promise<void>;
}
