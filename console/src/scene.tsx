import { useEffect, useRef } from 'preact/hooks';
import { api } from './api';
import { useNow } from './hooks';
import { Outside } from './outside';
import { isolate } from './outside-text';
import { onFeedEvent } from './sse';
import { age, when } from './time-text';
import { Loading, useLoad } from './views-common';

export const SCENE_READBACK = 'agentcore-live-ops-scene-state';

// The scene's types are written out, not generated: its readback route declares a free-form
// object, so the OpenAPI document says nothing of the scene's shape.

interface SceneActor {
  id: string;
  state: string;
  activity: string;
  last_event_at: string | null;
}

interface SceneEdge {
  from: string;
  to: string;
  active: boolean;
}

interface TraceEvent {
  seq: number;
  type: string;
  actor: string;
  success: boolean;
  at: string;
  summary: string;
}

export interface Scene {
  frame: { sequence: number; generated_at: string };
  actors: SceneActor[];
  edges: SceneEdge[];
  trace: TraceEvent[];
  work_items: { id: string; title: string; status: string; progress_percent: number }[];
}

const WIDTH = 760;
const HEIGHT = 460;
const EXPERT_Y = [50, 165, 280, 395];

/** Where each actor stands: intake left, the four experts in a column, then executor and chat. */
function layout(actors: SceneActor[]): Map<string, { x: number; y: number }> {
  const places = new Map<string, { x: number; y: number }>();
  let expert = 0;
  for (const actor of actors) {
    if (actor.id === 'intake') places.set(actor.id, { x: 90, y: HEIGHT / 2 });
    else if (actor.id === 'executor') places.set(actor.id, { x: 520, y: HEIGHT / 2 });
    else if (actor.id === 'chat_gateway') places.set(actor.id, { x: 670, y: HEIGHT / 2 });
    else {
      places.set(actor.id, { x: 305, y: EXPERT_Y[expert % EXPERT_Y.length] ?? HEIGHT / 2 });
      expert += 1;
    }
  }
  return places;
}

const label = (id: string) => id.replace(/_/g, ' ');

/** The scene drawn in SVG; a requestAnimationFrame loop moves it unless motion is reduced. */
export function SceneDrawing({ scene }: { scene: Scene }) {
  const svg = useRef<SVGSVGElement>(null);
  const places = layout(scene.actors);

  useEffect(() => {
    const root = svg.current;
    if (!root) return;
    const query = matchMedia('(prefers-reduced-motion: reduce)');
    let frame = 0;
    const draw = (t: number) => {
      const still = query.matches;
      root.querySelectorAll<SVGGElement>('[data-actor]').forEach((group, index) => {
        const place = places.get(group.dataset.actor ?? '');
        if (!place) return;
        const state = group.dataset.state;
        const bob = still ? 0 : Math.sin(t / 700 + index) * (state === 'active' ? 4 : 2);
        group.setAttribute('transform', `translate(${place.x} ${(place.y + bob).toFixed(2)})`);
        const ring = group.querySelector<SVGCircleElement>('.actor-ring');
        if (ring) {
          const pulse = still || state !== 'active' ? 0 : (Math.sin(t / 260 + index) + 1) * 5;
          ring.setAttribute('r', (28 + pulse).toFixed(2));
        }
      });
      root.querySelectorAll<SVGCircleElement>('[data-packet]').forEach((dot, index) => {
        const from = places.get(dot.dataset.from ?? '');
        const to = places.get(dot.dataset.to ?? '');
        if (!from || !to) return;
        const share = still ? 0.5 : (t / 1600 + index * 0.37) % 1;
        dot.setAttribute('cx', (from.x + (to.x - from.x) * share).toFixed(2));
        dot.setAttribute('cy', (from.y + (to.y - from.y) * share).toFixed(2));
      });
      if (!still) frame = requestAnimationFrame(draw);
    };
    const start = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(draw);
    };
    start();
    query.addEventListener('change', start);
    return () => {
      cancelAnimationFrame(frame);
      query.removeEventListener('change', start);
    };
  }, [scene]);

  // An attribute and SVG text hold no element: the actors' names are isolated as strings.
  const active = scene.actors
    .filter((actor) => actor.state === 'active')
    .map((a) => isolate(label(a.id)));
  return (
    <svg
      ref={svg}
      class="scene"
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-label={`Live-ops scene: ${active.length ? `${active.join(', ')} active` : 'every actor idle'}`}
      data-testid="scene"
    >
      {scene.edges.map((edge) => {
        const from = places.get(edge.from);
        const to = places.get(edge.to);
        if (!from || !to) return null;
        return (
          <line
            key={`${edge.from}-${edge.to}`}
            class={edge.active ? 'edge edge-active' : 'edge'}
            x1={from.x}
            y1={from.y}
            x2={to.x}
            y2={to.y}
          />
        );
      })}
      {scene.edges.map((edge) =>
        edge.active || edge.from === 'intake' ? (
          <circle
            key={`packet-${edge.from}-${edge.to}`}
            class={edge.active ? 'packet packet-active' : 'packet'}
            data-packet=""
            data-from={edge.from}
            data-to={edge.to}
            r={edge.active ? 6 : 3}
          />
        ) : null,
      )}
      {scene.actors.map((actor) => {
        const place = places.get(actor.id) ?? { x: 0, y: 0 };
        return (
          <g
            key={actor.id}
            data-actor={actor.id}
            data-state={actor.state}
            class={`actor actor-${actor.state}`}
            transform={`translate(${place.x} ${place.y})`}
          >
            <circle class="actor-ring" r={28} />
            <circle class="actor-body" r={22} />
            <text class="actor-label" y={50} text-anchor="middle">
              {isolate(label(actor.id))}
            </text>
            <text class="actor-state" y={4} text-anchor="middle">
              {isolate(actor.state)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

export function SceneView() {
  const now = useNow(5000);
  const { data, error, reload } = useLoad(() => api<Scene>(`/api/v1/agents/${SCENE_READBACK}`), []);
  useEffect(() => {
    const timer = setInterval(reload, 5000);
    const off = onFeedEvent(() => reload());
    return () => {
      clearInterval(timer);
      off();
    };
  }, []);
  return (
    <section aria-labelledby="scene-title">
      <p>
        <a href="#/readbacks">← Readbacks</a>
      </p>
      <h1 id="scene-title">Live-ops scene</h1>
      {!data ? (
        <Loading error={error} />
      ) : (
        <>
          <p class="muted small">
            Frame {data.frame.sequence}, generated {when(data.frame.generated_at)}.{' '}
            <a href={`#/readbacks/${SCENE_READBACK}?json=1`}>Document as served</a>
          </p>
          <div class="scene-wrap">
            <SceneDrawing scene={data} />
          </div>
          <h2>Actors</h2>
          <ul class="actors">
            {data.actors.map((actor) => (
              <li key={actor.id} class={`actor-item actor-${actor.state}`}>
                <span class="actor-dot" aria-hidden="true" />
                <strong>
                  <Outside>{label(actor.id)}</Outside>
                </strong>{' '}
                <span class={`badge scene-${actor.state}`}>
                  <Outside>{actor.state}</Outside>
                </span>
                <div class="small">
                  <Outside>{actor.activity}</Outside>
                  {actor.last_event_at ? ` · ${age(actor.last_event_at, now)} ago` : ''}
                </div>
              </li>
            ))}
          </ul>
          <h2>Latest trace</h2>
          {data.trace.length === 0 ? (
            <p class="muted">No trace event yet.</p>
          ) : (
            <ol class="timeline">
              {data.trace.map((event) => (
                <li key={event.seq}>
                  <time dateTime={event.at}>{when(event.at)}</time>{' '}
                  <strong>
                    <Outside>{event.type}</Outside>
                  </strong>{' '}
                  by <Outside>{event.actor}</Outside>: <Outside>{event.summary}</Outside>{' '}
                  <span class={`badge ${event.success ? 'status-approved' : 'status-rejected'}`}>
                    {event.success ? 'ok' : 'failed'}
                  </span>
                </li>
              ))}
            </ol>
          )}
        </>
      )}
    </section>
  );
}
