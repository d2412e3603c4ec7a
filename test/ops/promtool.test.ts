// GET /metrics passes Prometheus' own linter: `promtool check metrics` finds nothing to report.
import { testNeedingTools } from '../harness/optional_tools';
import { promtool, scrapedServer } from './scrape';

testNeedingTools(['promtool'], '/metrics after writes, searches and errors passes promtool check metrics with no findings', async (t) => {
  const scrape = await scrapedServer(t);
  t.regex(scrape, /^svc_http_requests_total\{route="\/collections\/\{name\}\/upsert",status="4xx"\} 1$/m, 'the scrape saw the traffic');
  t.deepEqual(await promtool(['check', 'metrics'], scrape), { code: 0, output: '' });
});
