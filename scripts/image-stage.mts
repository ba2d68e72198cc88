// npm run image:stage: writes r-image/staged/ (bundled handler, rules, grammar, runner,
// packages.R) so that `docker build r-image` or `podman build r-image` works without this repo's tooling.
import { stageImageContext } from '../infra/lib/image-context.ts';

console.log(stageImageContext());
