// parquetjs-lite ships no types; the benchmark and tests use a few calls and type them where they do.
declare module 'parquetjs-lite'
