#!/bin/bash
# A sweep as a Slurm job array: each array task runs one shard of the spec
# (`passerby sweep --shard N` reads its index from SLURM_ARRAY_TASK_ID) into a shared folder;
# each shard writes its own manifest (manifest-shard-I-of-N.jsonl). Resubmitting the array
# skips scenarios already done (outputs present with their hashes).
#SBATCH --job-name=passerby-sweep
#SBATCH --array=0-7            # shards 0..7: keep the count equal to --shard below
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --time=02:00:00
#SBATCH --output=sweep-%A_%a.log
set -euo pipefail
passerby --offline sweep sweep.toml --out "${SWEEP_OUT:-$PWD/sweep}" --shard 8 --jobs 1
