// A view another part of varlab fills in; until it lands, say what will be there.
export function Placeholder({ title, children }: { title: string; children: string }) {
  return (
    <div className="placeholder" data-testid="placeholder">
      <h2>{title}</h2>
      <p>{children}</p>
    </div>
  );
}
