// MCP adds routes only (lib/features/mcp), nothing to the library; its extension gives it its
// place among the build features /stats lists.

import { installExtension } from '../../store/store';
import { hasFeature } from '../built';

installExtension({ name: 'mcp', feature: 'mcp', enabled: hasFeature('mcp') });
