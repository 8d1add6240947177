"""The engine: a simulation's arrays built from an experiment (:mod:`.build`), its tick
(:mod:`.simulation`), the threads its kernels run on (:mod:`.threads`) and the cache warmer
(:mod:`.warm_cache`)."""
