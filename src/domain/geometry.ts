// Value types shared by the renderer, the differ and the stores. Kept apart (importing nothing) so that
// sharing a shape does not make one of those layers depend on another.

/** A rectangle in image pixels (device pixels from the top-left of a captured image). */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
